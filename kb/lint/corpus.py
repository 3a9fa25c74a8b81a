"""Has a pattern ever matched real evidence? The text of every fixture of the knowledge base.

A case's own fixtures are its incidents; the near misses its `rule_out` clauses exclude, and
many lines its alternatives name, were posted in threads that are another case's incidents
and are filed there. The fixture rules ask this index before they warn that a query holds on
no real evidence, so a warning means exactly that: no line of any stored incident matches.

It reads files as they are (no evidence reader, no rank attribution), so a query's `sources`
other than `notes`, its `files` globs and its counts are not applied: the question is
whether the pattern is too strict for the lines people post, not whether the case matches.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from dsl import model as m
from kb.evidence.inputs import INCIDENT_FILE

MAX_FILE_BYTES = 4 << 20  # larger fixture files are archives or dumps, not posted lines
SKIPPED_NAMES = {INCIDENT_FILE, ".gitkeep"}  # metadata about an incident, never its evidence


@dataclass(frozen=True)
class CorpusFile:
    path: str
    notes: bool  # the person's own words (`sources [notes]` reads only these)
    data: bytes


@lru_cache(maxsize=4)
def corpus(roots: tuple[str, ...]) -> tuple[CorpusFile, ...]:
    """Every readable text file under `<root>/<case>/fixtures/`, for each of `roots`."""
    from kb.evidence.sources.notes import NotesSource

    out: list[CorpusFile] = []
    for root in roots:
        for fixtures in sorted(Path(root).glob("*/fixtures")):
            for path in sorted(fixtures.rglob("*")):
                if path.name in SKIPPED_NAMES or path.is_symlink() or not path.is_file():
                    continue
                try:
                    if path.stat().st_size > MAX_FILE_BYTES:
                        continue
                    data = path.read_bytes()
                except OSError:
                    continue
                if b"\0" in data[:4096]:
                    continue  # compressed or binary
                head = data[:4096].decode("utf-8", "replace")
                notes = NotesSource.sniff(head, path.name) >= 0.5
                out.append(CorpusFile(str(path), notes, data))
    return tuple(out)


def first_match(query: m.Query, roots: tuple[str, ...]) -> str | None:
    """A fixture file holding a line the log query's pattern matches, or None (also for a
    query that is not a log query: only its own fixtures can show those)."""
    import re2

    from kb.scan import _re2
    from kb.scan.regexes import validate_regex

    if not isinstance(query, m.LogQuery):
        return None
    pattern = query.pattern
    if validate_regex(pattern.pattern, pattern.ignore_case, scanned=False) is not None:
        return None
    program = re2.compile(b"(?m)" + pattern.pattern.encode(), _re2.options(pattern.ignore_case))
    notes_only = set(query.sources) == {"notes"}
    for f in corpus(roots):
        if (f.notes or not notes_only) and program.search(f.data) is not None:
            return f.path
    return None
