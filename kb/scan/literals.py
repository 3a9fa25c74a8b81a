"""Which patterns can occur in a small text at all: the plain runs every match must hold.

A warm `kb diagnose` scans the user's notes with an RE2 set of ~200 phrasings (RE2 programs
cannot be saved, so the set was compiled on every call, then searched with a lazily built
DFA: about 0.07 s of CPU for a notes file of a few lines). A pattern's *factor* is what
every match holds, as plain runs combined with all/any (`(hang|stuck) at eval` -> all(any(hang,
stuck), at eval)); a pattern whose factor the text lacks cannot match it, and is never
compiled.

The factor is read from Python's parse of the pattern, which agrees with RE2's on plain
characters; where the two syntaxes could read a run differently (POSIX classes, `\\Q`, the
verbose flag, an escaped non-ASCII byte) the pattern has no factor and is always matched.
Runs and text are compared with the case of every Latin-1 letter folded, more than a caseless
RE2 pattern over bytes folds, so a factor is only ever a necessary condition.
"""

from __future__ import annotations

import re
from typing import Any

MAX_RUNS = 256  # a requirement with more runs is not worth its substring tests
_UNSURE = re.compile(r"\[:|\\[QEpPCzZ]|\(\?[a-zA-Z]*x|\(\?[a-zA-Z]*U")
_ESCAPED_BYTE = re.compile(r"\\(?:[xuUN0-7])")

# A requirement: a folded run the text must hold, or ["all", r...] / ["any", r...] of them.
Requirement = str | list[Any]


def fold(data: bytes) -> str:
    """Bytes as the case-folded Latin-1 text a requirement is compared with."""
    return data.decode("latin-1").lower()


def factor(expr: str) -> Requirement | None:
    """What every match of `expr` (as RE2 reads it over Latin-1 bytes) holds, as folded runs
    combined with all/any; None when that cannot be told.

    >>> factor(r"(?i:\\bhang(s|ing)?\\b|\\bstuck\\b) at eval")
    ['all', ['any', 'hang', 'stuck'], ' at eval']
    >>> factor(r"NCCL WARN .* timeout|Watchdog caught")
    ['any', ['all', 'nccl warn ', ' timeout'], 'watchdog caught']
    >>> factor(r"[[:digit:]]+ error") is None  # a POSIX class: Python reads it otherwise
    True
    >>> factor(r"\\d+") is None
    True
    """
    if _UNSURE.search(expr):
        return None
    try:
        import re._constants as constants
        import re._parser as parser
    except ImportError:  # pragma: no cover - Python 3.10
        return None
    try:
        parsed = parser.parse(expr)
    except (re.error, RecursionError, OverflowError, ValueError):
        return None
    # `\xe9` is one byte to RE2 but the same character as a raw `é` (two UTF-8 bytes) to
    # Python: a non-ASCII character then says nothing
    raw_only = _ESCAPED_BYTE.search(expr) is None
    found = _Factors(constants, raw_only).sequence(list(parsed))
    if found is None or _runs(found) > MAX_RUNS:
        return None
    return found


class _Factors:
    def __init__(self, c: Any, raw_only: bool) -> None:
        self.c = c
        self.raw_only = raw_only
        self.repeats = tuple(
            getattr(c, name)
            for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
            if hasattr(c, name)
        )

    def sequence(self, items: list[tuple[Any, Any]]) -> Requirement | None:
        """What every match of the items in a row holds (None: nothing known)."""
        c = self.c
        found: list[Requirement] = []
        run: list[str] = []

        def add(req: Requirement | None) -> None:
            if isinstance(req, list) and req[0] == "all":
                found.extend(req[1:])
            elif req is not None:
                found.append(req)

        def flush() -> None:
            if run:
                add(fold("".join(run).encode("utf-8")))
                run.clear()

        for op, arg in items:
            if op is c.LITERAL and (arg < 0x80 or self.raw_only):
                run.append(chr(arg))
                continue
            flush()
            if op is c.SUBPATTERN:
                add(self.sequence(list(arg[-1])))
            elif op in self.repeats:
                low, _high, inner = arg
                if low >= 1:
                    add(self.sequence(list(inner)))
            elif op is getattr(c, "ATOMIC_GROUP", None):
                add(self.sequence(list(arg)))
            elif op is c.BRANCH:
                add(self.branch([self.sequence(list(b)) for b in arg[1]]))
        flush()
        if not found:
            return None
        return found[0] if len(found) == 1 else ["all", *found]

    @staticmethod
    def branch(options: list[Requirement | None]) -> Requirement | None:
        """One of the branches matched: nothing known when one of them is unknown."""
        out: list[Requirement] = []
        for req in options:
            if req is None:
                return None
            out.extend(req[1:] if isinstance(req, list) and req[0] == "any" else [req])
        return out[0] if len(out) == 1 else ["any", *out]


def _runs(req: Requirement) -> int:
    return 1 if isinstance(req, str) else sum(_runs(r) for r in req[1:])


def may_occur(req: Requirement | None, folded: str) -> bool:
    """False only when the folded text lacks what every match holds (so no match)."""
    if req is None:
        return True
    if isinstance(req, str):
        return req in folded
    if req[0] == "all":
        return all(may_occur(r, folded) for r in req[1:])
    return any(may_occur(r, folded) for r in req[1:])


def well_formed(req: Any) -> bool:
    """A requirement as `factor` writes it (a record read from disk is checked with this)."""
    if isinstance(req, str):
        return bool(req)
    return (
        isinstance(req, list)
        and len(req) >= 3
        and req[0] in ("all", "any")
        and all(well_formed(r) for r in req[1:])
    )
