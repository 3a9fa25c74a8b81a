"""A file's suspicious lines (errors, warnings, timeouts): its first ones and its last ones.

A log can hold more than the cap (a warning every step): the first half of the cap is kept,
and the last lines in a rolling tail, since a run's fatal error comes at its end. Lines bound
for the tail may stay raw bytes (`raw`) and are decoded only if they survive to the end.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kb.evidence.facts import EvidenceLine

if TYPE_CHECKING:
    from kb.evidence.context import Line

_UNSET: Any = object()  # no rank override: the line's own rank


class SuspiciousLines:
    """Each line once, whichever sources flagged it; into `out` (the file's facts)."""

    def __init__(
        self,
        out: list[EvidenceLine],
        cap: int,
        decode: Callable[[int, bytes], Line],
        evidence: Callable[[Line, str], EvidenceLine],
    ) -> None:
        self.out, self.cap, self._decode, self._evidence = out, cap, decode, evidence
        self._seen: set[int] = set()
        self._tail: deque[tuple[Line | tuple[int, bytes], str, Any]] | None = None

    def add(self, line: Line, source: str, rank: int | None = _UNSET) -> None:
        """`rank` overrides the line's own (torchrun's failure table names the rank that failed)."""
        if line.no in self._seen:
            return
        self._seen.add(line.no)
        if not self.head_full():
            self.out.append(self._entry(line, source, rank))
            return
        self._to_tail(line, source, rank)

    def head_full(self) -> bool:
        return len(self.out) >= self.cap - self.cap // 2

    def raw(self, no: int, raw: bytes, source: str) -> None:
        """`add` for a line bound for the tail (`head_full`) that can only be the file's rank:
        kept as bytes, decoded only if it is still among the last lines when the file ends."""
        if no in self._seen:
            return
        self._seen.add(no)
        self._to_tail((no, raw), source, _UNSET)

    def finish(self) -> None:
        """The tail joins the head, once the file is read."""
        if self._tail:
            for line, source, rank in self._tail:
                self.out.append(self._entry(line, source, rank))
        self._tail = None

    def _to_tail(self, line: Line | tuple[int, bytes], source: str, rank: Any) -> None:
        if self._tail is None:
            self._tail = deque(maxlen=self.cap // 2)
        self._tail.append((line, source, rank))

    def _entry(self, line: Line | tuple[int, bytes], source: str, rank: Any) -> EvidenceLine:
        if isinstance(line, tuple):
            line = self._decode(*line)
        ev = self._evidence(line, source)
        if rank is not _UNSET:
            ev.rank = rank
        return ev
