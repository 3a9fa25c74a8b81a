"""Which catalogue messages each case's stored positive fixtures print, counted per fixture.

A message page ranks the causes that can print it by this count: a cause whose real
incidents print the message in 9 of 10 fixtures comes before one that printed it once. Only
the messages that name the case among their causes are looked for in its fixtures, and only
plain-text files are read (bounded), so the count is cheap and says "at least".
"""

from __future__ import annotations

import re
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

from dsl import model as m
from dsl.catalogue.index import IndexedMessage, message_index

MAX_FIXTURES = 200  # fixture folders read per case
MAX_FILES = 200  # files read per fixture
MAX_BYTES = 4 * 1024 * 1024  # bytes read per file
BINARY = (".gz", ".tgz", ".zip", ".xz", ".bz2", ".tar", ".png", ".jpg", ".pt", ".bin")


@lru_cache(maxsize=4096)
def _compiled(regex: str) -> re.Pattern[str] | None:
    try:
        return re.compile(regex, re.MULTILINE)
    except re.error:
        return None


def positive_fixtures(case: m.Case) -> list[Path]:
    """The case's stored positive fixture folders: every folder under `fixtures/positive`
    but those its `fixtures` block expects no match from or marks as a known gap."""
    if not case.folder:
        return []
    root = (Path(case.folder) / "fixtures" / "positive").resolve()
    skip = {
        f.path.removeprefix("positive/")
        for f in case.fixtures
        if f.path.startswith("positive/") and (f.outcome == "no-match" or f.todo)
    }
    try:
        folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        return []
    return [p for p in folders[:MAX_FIXTURES] if p.name not in skip]


def _texts(folder: Path) -> list[str]:
    out: list[str] = []
    try:
        files = sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    except OSError:
        return out
    for path in files[:MAX_FILES]:
        if path.suffix.lower() in BINARY or path.name == "incident.yaml":
            continue
        if not path.resolve().is_relative_to(folder.resolve()):
            continue  # stay inside the fixture folder
        try:
            with path.open("rb") as handle:
                out.append(handle.read(MAX_BYTES).decode("utf-8", "replace"))
        except OSError:
            continue
    return out


def prints(entry: IndexedMessage, texts: list[tuple[str, str]]) -> bool:
    """Whether any (text, lowered text) holds the message: its shared literal first, then
    its pattern (the same index `kb diagnose` reads, whose patterns never start with a lazy
    dot, so a search over a whole file stays linear)."""
    compiled = _compiled(entry.pattern)
    if compiled is None:
        return False
    return any(
        (not entry.literal or entry.literal in lowered) and compiled.search(text)
        for text, lowered in texts
    )


def counts(cases: list[m.Case]) -> dict[tuple[str, str], tuple[int, int]]:
    """{(case id, message id): (fixtures printing it, positive fixtures of the case)}."""
    naming: dict[str, list[IndexedMessage]] = defaultdict(list)
    for msg in message_index().messages:
        for cause in msg.causes:
            naming[cause].append(msg)
    out: dict[tuple[str, str], tuple[int, int]] = {}
    for case in cases:
        wanted = naming.get(case.id, [])
        if not wanted:
            continue
        folders = positive_fixtures(case)
        hits: dict[str, int] = defaultdict(int)
        for folder in folders:
            texts = [(t, t.lower()) for t in _texts(folder)]
            for msg in wanted:
                if prints(msg, texts):
                    hits[msg.id] += 1
        for msg in wanted:
            out[(case.id, msg.id)] = (hits.get(msg.id, 0), len(folders))
    return out
