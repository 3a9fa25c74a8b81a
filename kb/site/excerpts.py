"""Fixture excerpts: the lines of a case's own evidence that its queries match.

The page shows each query next to a real line it matches, with a few lines of context
and the line highlighted. The evidence engine (`kb.fixtures.fixture_evidence`) is the
authority on which lines match; when it fails on a fixture, the lines the fixture declares
(`lines { q "file:line" }`) are shown. Case patterns are strangers' regexes: they are only
ever run by RE2 (`display_pattern`), never by Python's `re`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dsl import model as m
from kb.fixtures import fixture_evidence, linked_part
from kb.match.regex import TextPattern, compiled

log = logging.getLogger("mkdocs.hooks.kb.excerpts")

CONTEXT = 3
MAX_LINE = 240
MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_FILES = 500


@dataclass
class Excerpt:
    """A window of one fixture file around the lines a query matched."""

    fixture: str  # "positive/two-ranks"
    file: str  # relative to the fixture folder
    first: int  # line number of lines[0]
    lines: list[str]
    marked: list[int] = field(default_factory=list)  # 1-based positions inside `lines`
    rank: int | None = None
    found_by: str = "engine"  # engine | declared | regex

    @property
    def line(self) -> int:
        """The first highlighted line, as a file line number."""
        return self.first + (self.marked[0] - 1 if self.marked else 0)

    @property
    def matched(self) -> str:
        return self.lines[self.marked[0] - 1] if self.marked else ""


def _read_lines(path: Path) -> list[str] | None:
    try:
        if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace").splitlines()


def _clip(text: str) -> str:
    text = text.expandtabs(4)
    return text if len(text) <= MAX_LINE else text[: MAX_LINE - 1] + "…"


def _window(
    fixture: str, file: str, lines: list[str], hits: list[int], rank: int | None, how: str
) -> Excerpt:
    """Lines around the first hit; every hit inside the window is marked."""
    first_hit = hits[0]
    start = max(1, first_hit - CONTEXT)
    end = min(len(lines), first_hit + CONTEXT)
    marked = [h - start + 1 for h in hits if start <= h <= end]
    return Excerpt(
        fixture=fixture,
        file=file,
        first=start,
        lines=[_clip(t) for t in lines[start - 1 : end]],
        marked=marked,
        rank=rank,
        found_by=how,
    )


def _files(root: Path) -> Iterator[tuple[str, Path]]:
    count = 0
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            count += 1
            if count > MAX_FILES:
                return
            yield path.relative_to(root).as_posix(), path


def _compile(value: m.Regex) -> TextPattern | None:
    flags = "".join(f for f in value.flags if f in "ms")  # as the scanner runs it
    return compiled(f"(?{flags}){value.pattern}" if flags else value.pattern, value.ignore_case)


def display_pattern(q: m.Query) -> tuple[TextPattern | None, list[str]]:
    """An RE2 pattern that finds lines this query is about, and the file globs to search."""
    if isinstance(q, m.LogQuery):
        return _compile(q.pattern), q.files
    if isinstance(q, m.StackQuery):
        return _compile(q.frame), []
    if isinstance(q, m.PackageQuery):
        name = r"[-_.]".join(re.escape(p) for p in re.split(r"[-_.]+", q.package))
        return compiled(rf"^\s*{name}(\s|==|=|@|$)", True), []
    if isinstance(q, m.EnvQuery):
        return compiled(rf"^\s*(export\s+)?{re.escape(q.variable)}=", False), []
    if isinstance(q, m.HardwareQuery) and q.model is not None:
        return _compile(q.model), []
    return None, []


def _declared(case: m.Case, fixture: m.FixtureExpectation, q: m.Query) -> Excerpt | None:
    root = Path(case.folder) / "fixtures" / fixture.path
    for name, where in fixture.lines:
        file, _, number = where.rpartition(":")
        if name != q.name or not number.isdigit():
            continue
        path = (root / file).resolve()
        if not path.is_relative_to(root.resolve()):
            continue
        lines = _read_lines(path)
        if lines and 0 < int(number) <= len(lines):
            return _window(fixture.path, file, lines, [int(number)], None, "declared")
    return None


_evidence: dict[tuple[str, str], Any] = {}


def clear() -> None:
    """Forget engine results, so a rebuild under `mkdocs serve` sees edited fixtures."""
    _evidence.clear()


def _from_engine(
    engine: Callable[..., Any],
    case: m.Case,
    fixture: m.FixtureExpectation,
    q: m.Query,
    machine_only: bool = False,
) -> Excerpt | None:
    key = (case.folder, fixture.path)
    if key not in _evidence:
        try:
            _evidence[key] = engine(case, fixture)
        except Exception as err:  # the engine is someone else's: report, fall back, go on
            log.warning("fixture_evidence(%s, %s) failed: %s", case.id, fixture.path, err)
            _evidence[key] = None
    found = _evidence[key]
    if found is None:
        return None
    hits = list((found or {}).get(q.name, []))
    if machine_only:
        hits = [h for h in hits if h.source != "notes"]
    if not hits:
        return None
    first = hits[0]
    root = Path(case.folder) / "fixtures" / fixture.path
    same_file = sorted({h.line for h in hits if h.file == first.file})
    lines = None if "!/" in first.file else _read_lines(root / first.file)
    if lines and 0 < first.line <= len(lines):
        ordered = [first.line] + [n for n in same_file if n != first.line]
        return _window(fixture.path, first.file, lines, ordered, first.rank, "engine")
    return Excerpt(
        fixture=fixture.path,
        file=first.file,
        first=first.line,
        lines=[_clip(first.text)],
        marked=[1],
        rank=first.rank,
        found_by="engine",
    )


def excerpt(case: m.Case, q: m.Query, machine_only: bool = False) -> Excerpt | None:
    """The first positive fixture line that shows `q`, with context; None if none does.
    `machine_only`: a line a tool printed, never a message quoted in the reporter's notes."""
    if not case.folder:
        return None
    top = Path(case.folder)
    positives = [
        f
        for f in case.fixtures
        if f.outcome == "match"  # a linked fixture's lines are not the case's: never shown
        and linked_part(top / "fixtures" / f.path.strip("/"), top) is None
    ]
    for fixture in positives:
        found = _from_engine(fixture_evidence, case, fixture, q, machine_only)
        found = found or _declared(case, fixture, q)
        if found is not None:
            return found
    return None
