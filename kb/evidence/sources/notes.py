"""Free text the user wrote (README, notes, issue.md, description.txt): kept line by line in
Facts.notes so cases can match the symptom words ("hangs", "stuck at prepare", "卡住")."""

from __future__ import annotations

import re

from kb.evidence.sources.base import WholeFileSource

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
        if _NAMES.match(name) and ext in ("", "md", "txt", "rst"):
            return 0.85
        if ext in ("md", "rst"):
            return 0.6
        if SYMPTOMS.search(head) and len(head) < 4096 and not re.search(r"\d{2}:\d{2}:\d{2}", head):
            return 0.3
        return 0.0

    def parse(self, text: str) -> None:
        notes = self.ctx.facts.notes
        for no, raw in enumerate(text.splitlines(), 1):
            if raw.strip() and len(notes) < _MAX_NOTES:
                line = self.ctx.line(no, raw)
                notes.append(self.ctx.evidence(line, self.name))
