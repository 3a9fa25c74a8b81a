"""Never silent: the known messages a folder holds when no case explains it.

When no case reaches a level, the report still lists each error or warning line the
catalogue knows: what the message means, the causes that can print it (the cases among them
by name) and, where a case is among them, the command that would tell it apart. Lines come
from what the reader already kept (each file's suspicious lines, the user's quoted output),
so this costs no second scan.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dsl.catalogue.index import message_index, messages_in
from kb.evidence.facts import EvidenceLine
from kb.match.results import Result, Verdict

MAX_LINES = 2000  # lines looked at
MAX_SHOWN = 8  # messages reported
UNKNOWN = "unknown"


@dataclass(kw_only=True)
class KnownMessage(Result):
    """A line the catalogue knows, and what it can and cannot say."""

    id: str
    means: str
    role: str
    line: EvidenceLine
    causes: list[str] = field(default_factory=list)  # case ids; "unknown" = others exist
    tell_apart: str = ""  # a command that would separate the causes, when one is known


def _command(causes: list[str], verdicts: dict[str, Verdict]) -> str:
    for case_id in causes:
        v = verdicts.get(case_id)
        for miss in v.missing if v else []:
            if miss.commands:
                return miss.commands[0].strip().splitlines()[0]
    return ""


def known_messages(lines: list[EvidenceLine], verdicts: list[Verdict]) -> list[KnownMessage]:
    """The catalogued error and warning messages among `lines`, first seen first, each once;
    decisive ones first (they name one cause)."""
    entries = [e for e in message_index().messages if e.severity in ("error", "warn")]
    by_id = {v.id: v for v in verdicts}
    found: dict[str, KnownMessage] = {}
    for line in lines[:MAX_LINES]:
        for entry in messages_in(line.text, entries):
            if entry.id in found:
                continue
            found[entry.id] = KnownMessage(
                id=entry.id,
                means=entry.means,
                role=entry.role,
                line=line,
                causes=list(entry.causes),
                tell_apart=_command([c for c in entry.causes if c != UNKNOWN], by_id),
            )
    ordered = sorted(found.values(), key=lambda k: (k.role != "decisive", k.role == "context"))
    return ordered[:MAX_SHOWN]
