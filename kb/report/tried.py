"""What the user's notes say was already tried, so the report does not offer it as the fix.

"Tried NCCL_P2P_DISABLE=1 already, same thing" or "I already edited /etc/security/limits.conf,
but that changed nothing": a remedy step that sets the same variable (to the same value, when
the notes give one) or edits the same file is shown as tried, not first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kb.evidence.facts import EvidenceLine
from kb.evidence.lazy_pattern import lazy

_TRIED = lazy(
    r"\b(tried|already|did ?n[o']t help|does ?n[o']t help|no effect|without effect|changed nothing|"
    r"same thing|same error|still (fails|hangs|happens)|not help)",
    re.I,
)
_ASSIGN = lazy(r"\b([A-Z][A-Z0-9]*_[A-Z0-9_]+)=([^\s#'\"]*)")
_PATH = lazy(r"(?<![\w/])(/etc/[\w./-]+|ulimit -l)")


def _sentences(notes: Iterable[EvidenceLine]) -> list[tuple[str, EvidenceLine]]:
    out = []
    for ln in notes:
        out += [(s, ln) for s in re.split(r"(?<=[.!?;])\s+", ln.text) if _TRIED.search(s)]
    return out


def _keys(code: str) -> list[tuple[str, str | None]]:
    keys: list[tuple[str, str | None]] = []
    for line in code.splitlines():
        line = line.split("#", 1)[0]
        keys += [(name, value or None) for name, value in _ASSIGN.findall(line)]
        keys += [(path, None) for path in _PATH.findall(line)]
    return keys


def tried_by(commands: Iterable[str], notes: Iterable[EvidenceLine]) -> EvidenceLine | None:
    """The notes line saying these commands' settings were already tried (every variable
    they set, to the same value when the notes give one; every file they edit), or None.

    >>> ln = EvidenceLine(file="notes.txt", line=1, text="Tried NCCL_P2P_DISABLE=1 already.")
    >>> tried_by(["export NCCL_P2P_DISABLE=1"], [ln]).where
    'notes.txt:1'
    >>> tried_by(["export NCCL_SOCKET_IFNAME=eth0"], [ln]) is None
    True
    >>> tried_by(["export NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1"], [ln]) is None
    True
    """
    said = _sentences(notes)
    keys = [key for code in commands for key in _keys(code)]
    if not said or not keys:
        return None
    found = None
    for name, value in keys:
        line = _said(name, value, said)
        if line is None:
            return None
        found = found or line
    return found


def _said(
    name: str, value: str | None, said: list[tuple[str, EvidenceLine]]
) -> EvidenceLine | None:
    for sentence, ln in said:
        if name not in sentence:
            continue
        given = re.search(re.escape(name) + r"\s*=\s*([^\s,;.)]+)", sentence)
        if not value or not given or given.group(1) == value:
            return ln
    return None
