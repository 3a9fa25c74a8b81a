"""Free text the user wrote (README, notes, issue.md, description.txt): kept line by line in
Facts.notes so cases can match the symptom words ("hangs", "stuck at prepare", "卡住")."""

from __future__ import annotations

import re

from kb.evidence.sources.base import WholeFileSource
from kb.evidence.sources.python_source import PythonSource

_NAMES = re.compile(
    r"^(readme|notes?|issue|description|problem|symptoms?|report|summary)([-_. ].*)?$", re.I
)
SYMPTOMS = re.compile(
    r"\bhang(s|ing)?\b|\bstuck\b|\bfreez(e|es|ing)\b|\bdeadlock|\btimes? out\b|\btimeout\b|卡住|卡死|挂起|超时|报错",
    re.IGNORECASE,
)
_MAX_NOTES = 500


class NotesSource(WholeFileSource):
    name = "notes"
    description = "the user's own description of the problem"

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        stem = name.rsplit(".", 1)
        ext = stem[1].lower() if len(stem) == 2 else ""
        if ext in ("md", "rst"):
            # markup is written by people: a log pasted into it sits in a fenced block, read as
            # log lines in place, so a one-line note that names `torchrun` stays a note
            return 0.95 if _NAMES.match(name) else 0.6
        if _NAMES.match(name) and ext in ("", "txt"):
            return 0.85
        if SYMPTOMS.search(head) and len(head) < 4096 and not re.search(r"\d{2}:\d{2}:\d{2}", head):
            return 0.3
        return 0.0

    def parse(self, text: str) -> None:
        notes = self.ctx.facts.notes
        lines = text.splitlines()
        for no, raw in enumerate(lines, 1):
            if raw.strip() and len(notes) < _MAX_NOTES:
                line = self.ctx.line(no, raw)
                notes.append(self.ctx.evidence(line, self.name))
        for first, last, language in fenced_blocks(lines):
            block = lines[first - 1 : last]
            if language in ("py", "python", "python3") or looks_like_python(block):
                # analyse the pasted code where it stands: other lines blanked, numbers kept
                masked = ["" for _ in lines]
                masked[first - 1 : last] = block
                PythonSource(self.ctx).parse("\n".join(masked))
            else:  # a pasted log: log queries read these lines like any log file
                self.ctx.facts.pasted.append((self.ctx.display, first, last))


FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w+-]*)")


def fenced_blocks(lines: list[str]) -> list[tuple[int, int, str]]:
    """(first, last, language) of each fenced block's content, 1-based and inclusive.

    >>> fenced_blocks(["words", "```python", "x = 1", "```", "```", "log"])
    [(3, 3, 'python'), (6, 6, '')]
    """
    out: list[tuple[int, int, str]] = []
    start: int | None = None
    language = ""
    for no, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if m and start is None:
            start, language = no + 1, m.group(2).lower()
        elif m and line.strip().strip("`~") == "":
            if start is not None and no - 1 >= start:
                out.append((start, no - 1, language))
            start = None
    if start is not None and len(lines) >= start:
        out.append((start, len(lines), language))  # an unclosed fence runs to the end
    return out


def looks_like_python(block: list[str]) -> bool:
    code = "\n".join(block)
    return bool(re.search(r"^\s*(def |import |from \w+ import |if .*:\s*$)|accelerator\.", code,
                          re.M))
