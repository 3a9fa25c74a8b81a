"""Error codes and well-known messages, each with the cases that explain it.

A person often has only a code (`EI0002`, `ncclRemoteError`, `IBV_WC_RETRY_EXC_ERR`) or a
famous line (`Watchdog caught collective operation timeout`). A case explains one when the
code is in the evidence that speaks *for* the case (its `require`/`likely`/`support`
patterns) or in its title, summary or symptoms; patterns used only to rule a case out do
not count, so a look-alike is never listed as an explanation.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from dsl import model as m
from kb.site import seen

CODE = re.compile(
    r"\bE[A-Z]\d{4}\b|\bnccl[A-Z][a-zA-Z]+Error\b|\bIBV_WC_[A-Z_]+[A-Z]\b"
    r"|\bCUDA_ERROR_[A-Z_]+[A-Z]\b|\bcudaError[A-Z][A-Za-z]+\b|\bXid \d+\b"
)

# Messages famous enough that people search for them as they are.
WELL_KNOWN = (
    "Watchdog caught collective operation timeout",
    "remote process exited or there was a network error",
    "unhandled system error",
    "Connection reset by peer",
    "Broken pipe",
    "CUDA out of memory",
    "an illegal memory access was encountered",
    "Segmentation fault",
    "Address already in use",
    "ChildFailedError",
    "Heartbeat Lost",
    "GPU has fallen off the bus",
    "DataLoader worker",
    "Detected mismatch between collectives",
    "Expected to mark a variable ready only once",
    "Socket Timeout",
    "undefined symbol",
)


@dataclass
class Code:
    """One code or message and the cases that explain it."""

    name: str
    kind: str  # "code" | "message"
    cases: list[m.Case] = field(default_factory=list)

    @property
    def slug(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")


def _unescape(pattern: str) -> str:
    return re.sub(r"\\(.)", r"\1", pattern)


def case_text(case: m.Case) -> str:
    """The text a case speaks for itself with: signal patterns, title, summary, symptoms."""
    parts = [case.title.en, case.summary.en, *(s.text.en for s in case.symptoms)]
    for q in seen.signal_queries(case):
        if isinstance(q, m.LogQuery) and "notes" not in q.sources:
            parts.append(_unescape(q.pattern.pattern))
        elif isinstance(q, m.StackQuery):
            parts.append(_unescape(q.frame.pattern))
    return "\n".join(parts)


def collect(cases: list[m.Case]) -> list[Code]:
    """Every code and well-known message some case explains, codes first, by name."""
    found: dict[str, Code] = {}
    for case in cases:
        text = case_text(case)
        names = {c: "code" for c in CODE.findall(text)}
        lowered = text.lower()
        for message in WELL_KNOWN:
            if message.lower() in lowered:
                names.setdefault(message, "message")
        for name, kind in names.items():
            code = found.setdefault(name, Code(name, kind))
            if case not in code.cases:
                code.cases.append(case)
    return sorted(found.values(), key=lambda c: (c.kind != "code", c.name.lower()))


def shared(codes: list[Code]) -> dict[str, dict[str, list[str]]]:
    """{case id: {other case id: [codes both explain]}}: what "sharing a symptom" means."""
    out: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for code in codes:
        ids = [c.id for c in code.cases]
        for a in ids:
            for b in ids:
                if a != b:
                    out[a][b].append(code.name)
    return out
