"""A pattern set's trailing patterns matched with the whole set's database.

The evidence reader needs the case patterns twice: with every line source's patterns for
line kinds, and alone for whole-file kinds (pip freeze, nvidia-smi). Compiling them twice
built two hyperscan databases over the same expressions on a first run (about half the cold
`kb diagnose`). `Tail` answers for the last patterns of a compiled set from that set's
scan: codes of the other patterns are dropped, the rest renumbered from 0. Whole-file kinds
are small (at most `Limits.whole_file_max`), so scanning them for patterns nobody asked for
costs little; muted patterns are dropped here too rather than by compiling a database
without them.
"""

from __future__ import annotations

from typing import Any


class Tail:
    """Backend over patterns [start, inner.n) of `inner`, codes `end * n + (index - start)`."""

    def __init__(self, inner: Any, start: int) -> None:
        if not 0 <= start < inner.n:
            raise ValueError(f"start {start} outside 0..{inner.n - 1}")
        self.inner, self.start = inner, start
        self.n = inner.n - start

    def scan_block(self, data: memoryview, muted: set[int] | None = None) -> list[int]:
        start, total, n = self.start, self.inner.n, self.n
        out: list[int] = []
        for code in self.inner.scan_block(data):
            end, idx = divmod(code, total)
            if idx >= start and not (muted and idx - start in muted):
                out.append(end * n + idx - start)
        return out

    def alone(self, line: bytes, indexes: set[int]) -> set[int]:
        start = self.start
        return {i - start for i in self.inner.alone(line, {i + start for i in indexes})}

    def line_stream(self, limit: int) -> _TailLine:
        return _TailLine(self.inner.line_stream(limit), self.start)


class _TailLine:
    def __init__(self, inner: Any, start: int) -> None:
        self.inner, self.start = inner, start

    def feed(self, piece: memoryview) -> None:
        self.inner.feed(piece)

    def close(self) -> set[int]:
        return {i - self.start for i in self.inner.close() if i >= self.start}
