"""The real lines a case is recognised by, whole and with the decisive part marked.

`kb.site.excerpts` finds where a query matched in a positive fixture; its window clips long
lines for the old layout, so the full line is read back here (bounded) and the matched part
found again with the query's display pattern. The result is HTML escaped here: the lines are
untrusted evidence.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from dsl import model as m
from kb.site import describe, excerpts
from kb.site.escape import Md

MAX_LINE = 2000
MAX_READ = 8 * 1024 * 1024
MAX_SEEN = 3
MAX_CHARS = 500  # a second or third line only while the lines stay this short together
SIGNAL_ROLES = (m.Role.REQUIRED, m.Role.LIKELY, m.Role.SUPPORTING)


@dataclass(frozen=True)
class SeenLine:
    """One real line: where it is, the text, and the [start, end) of its decisive part."""

    query: str
    where: str
    text: str
    start: int
    end: int


def _full_line(case: m.Case, fixture: str, file: str, number: int, fallback: str) -> str:
    if "!/" in file:
        return fallback
    root = (Path(case.folder) / "fixtures" / fixture).resolve()
    path = (root / file).resolve()
    try:
        if not path.is_relative_to(root) or not path.is_file():
            return fallback
        if path.stat().st_size > MAX_READ:
            return fallback
        with path.open("rb") as handle:
            for n, raw in enumerate(handle, 1):
                if n == number:
                    return raw.decode("utf-8", "replace").rstrip("\r\n").expandtabs(4)
    except OSError:
        return fallback
    return fallback


MAX_POSITIVES = 50


def with_every_positive(case: m.Case) -> m.Case:
    """The case with every positive fixture folder on disk, declared or not.

    `excerpts` looks only at fixtures the case file declares; real-incident folders
    usually have no `fixture` block, and their lines are the realest there are.
    """
    declared = {f.path for f in case.fixtures}
    extra: list[m.FixtureExpectation] = []
    root = Path(case.folder) / "fixtures" / "positive"
    try:
        folders = sorted(p.name for p in root.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        folders = []
    for name in folders[:MAX_POSITIVES]:
        path = f"positive/{name}"
        if path not in declared:
            extra.append(m.FixtureExpectation(path=path, outcome="match"))
    if not extra:
        return case
    return case.model_copy(update={"fixtures": [*case.fixtures, *extra]})


def signal_queries(case: m.Case) -> list[m.Query]:
    """Queries that speak for the case (not only against it), strongest role first."""
    roles = describe.roles(case)
    order = {role: n for n, role in enumerate(SIGNAL_ROLES)}
    picked = [q for q in case.queries if roles.get(q.name) in order]
    return sorted(picked, key=lambda q: order[roles[q.name]])


def _mark(q: m.Query, text: str) -> tuple[int, int]:
    pattern, _globs = excerpts.display_pattern(q)
    if pattern is not None:
        try:
            found = pattern.search(text)
        except (re.error, RecursionError):
            found = None
        if found and found.end() > found.start():
            return found.start(), found.end()
    stripped = len(text) - len(text.lstrip())
    return stripped, len(text)


def seen_lines(
    case: m.Case, limit: int = MAX_SEEN, max_chars: int | None = MAX_CHARS
) -> list[SeenLine]:
    """Up to `limit` distinct real lines shown by the case's log and stack queries."""
    out: list[SeenLine] = []
    texts: set[str] = set()
    case = with_every_positive(case) if case.folder else case
    for q in signal_queries(case):
        if not isinstance(q, m.LogQuery | m.StackQuery):
            continue
        if isinstance(q, m.LogQuery) and "notes" in q.sources:
            continue  # the reporter's words, not a log line
        found = excerpts.excerpt(case, q, machine_only=True)
        if found is None or not found.marked:
            continue
        text = _full_line(case, found.fixture, found.file, found.line, found.matched)
        text = text[:MAX_LINE].rstrip()
        text = text[len(text) - len(text.lstrip()) :]  # indentation says nothing here
        if not text or text in texts:
            continue
        if max_chars and out and sum(len(s.text) for s in out) + len(text) > max_chars:
            continue
        texts.add(text)
        start, end = _mark(q, text)
        out.append(SeenLine(q.name, f"{found.file}:{found.line}", text, start, end))
        if len(out) >= limit:
            break
    return out


def html_lines(lines: list[SeenLine]) -> Md:
    """The lines as a raw HTML block (wrapped by CSS, never clipped), decisive part marked."""
    parts = ['<div class="kb-seen">']
    for s in lines:
        before = html.escape(s.text[: s.start])
        mark = html.escape(s.text[s.start : s.end])
        after = html.escape(s.text[s.end :])
        parts.append(f'<p class="kb-seen-where">{html.escape(s.where)}</p>')
        parts.append(f'<pre class="kb-line"><code>{before}<mark>{mark}</mark>{after}</code></pre>')
    parts.append("</div>")
    return Md("\n".join(parts))
