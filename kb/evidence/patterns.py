"""The patterns one scan of a file looks for: every line source's and the cases' log queries.

Compiled once per process and set of case patterns (a database compile costs milliseconds
per pattern); `owners` says, for each pattern id the scanner reports, whose it is.

Patterns that only count in the user's own words (`sources [notes]`) stay out of the
hyperscan databases: they are most of the compile time (long alternations of phrasings,
three quarters of it for the bundled cases) and notes are small, so they are matched with an
RE2 set, compiled in milliseconds and only when a notes file is read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import NamedTuple

from kb.evidence.registry import LINE_SOURCES
from kb.scan.engine import PatternSet

CASE = "<case>"  # the owner of a case pattern (a line source's owner is its name)
PROGRESS = ("text-log", "progress")  # progress bars: kept raw, only the last ones matter


class LogPattern(NamedTuple):
    """A case log-query regex (RE2 syntax); hits are collected under `key`.

    `sources` and `files` are the query's own restrictions (kinds, path globs): a file is only
    scanned for the patterns that can count there (`kb.evidence.selection.scanned_in`).
    `enough`: once a single-rank file has this many hits, its count may stop (it is then a
    lower bound, and the file is listed in `PatternHits.saturated`); None counts every line."""

    key: str
    regex: str
    ignore_case: bool = False
    sources: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    enough: int | None = None  # a count this high (per file and rank) may stop: see dispatch.py


NOTES = "notes"


def notes_only(pattern: LogPattern) -> bool:
    """True when the query counts only in the user's own words."""
    return bool(pattern.sources) and set(pattern.sources) <= {NOTES}


@dataclass
class Compiled:
    log_set: PatternSet  # every line source's patterns + the case patterns that logs can hold
    case_set: PatternSet | None  # those case patterns only (whole-file kinds), log_set's tail
    owners: dict[int, tuple[str, str]]  # pattern id -> (source name or CASE, key)
    enough: dict[str, int]  # case key -> count after which a single-rank file may stop counting
    notes_entries: tuple[tuple[int, str, bool], ...] = ()  # the notes-only case patterns
    _notes_set: PatternSet | None = None
    # per scanned set: case key -> its indexes, index -> key (kb.evidence.dispatch)
    door_indexes: dict[PatternSet, tuple[dict[str, list[int]], dict[int, str]]] = field(
        default_factory=dict
    )

    @cached_property
    def progress_id(self) -> int | None:
        return next((pid for pid, owner in self.source_owners.items() if owner == PROGRESS), None)

    @cached_property
    def source_owners(self) -> dict[int, tuple[str, str]]:
        """The line sources' part of `owners`, which each file's door looks through: the
        case patterns, most of `owners`, are no line source's."""
        return {pid: owner for pid, owner in self.owners.items() if owner[0] != CASE}

    def notes_set(self) -> PatternSet | None:
        """The notes-only case patterns as an RE2 set, built on first use: a notes file is
        scanned with it after `case_set`."""
        if self._notes_set is None and self.notes_entries:
            self._notes_set = PatternSet(self.notes_entries, engine="re2")
        return self._notes_set


@lru_cache(maxsize=64)
def compile_patterns(patterns: tuple[LogPattern, ...], progress: bool = True) -> Compiled:
    """Builds the pattern sets once per process for a given set of case patterns.

    With `progress=False` the progress-bar pattern is left out: for large files on disk the
    last progress lines are read from the file's tail instead (see `progress.py`), since
    progress bars can be most of a log and would otherwise cost Python work per line."""
    owners: dict[int, tuple[str, str]] = {}
    entries: list[tuple[int, str, bool]] = []
    for cls in LINE_SOURCES:
        for key, (rx, ic) in cls.patterns.items():
            if not progress and (cls.name, key) == PROGRESS:
                continue
            owners[len(entries)] = (cls.name, key)
            entries.append((len(entries), rx, ic))
    in_logs: list[tuple[int, str, bool]] = []
    in_notes: list[tuple[int, str, bool]] = []
    for k, pat in enumerate(patterns):
        pid = len(entries) + k
        owners[pid] = (CASE, pat.key)
        (in_notes if notes_only(pat) else in_logs).append((pid, pat.regex, pat.ignore_case))
    log_set = PatternSet(entries + in_logs)
    return Compiled(
        log_set=log_set,
        case_set=log_set.tail(len(entries)) if in_logs else None,  # one database for both
        owners=owners,
        enough={p.key: p.enough for p in patterns if p.enough is not None},
        notes_entries=tuple(in_notes),
    )


def check_patterns(patterns: Sequence[LogPattern]) -> None:
    """Raises ValueError naming the first case pattern that does not compile.

    The whole set is compiled once (and cached); pattern by pattern only when that fails,
    to name the culprit, because compiling 500 databases one by one costs seconds."""
    try:
        compile_patterns(tuple(patterns), progress=False)  # the set files on disk use
        return
    except Exception:
        pass
    for pat in patterns:
        try:
            PatternSet([(0, pat.regex, pat.ignore_case)], engine="re2" if notes_only(pat) else None)
        except Exception as exc:
            raise ValueError(f"log pattern {pat.key!r} does not compile: {exc}") from None
