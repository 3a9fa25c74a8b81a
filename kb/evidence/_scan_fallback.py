"""Pure-Python stand-in for `kb.scan.engine` (same signature), used until the hyperscan engine lands.

One combined alternation per pattern would lose which pattern matched, so each line is tried
against every compiled regex; fine for tests and small folders.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol


class ByteStream(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


MAX_LINE = 64 * 1024  # longer lines are truncated before matching and before on_line
_CHUNK = 1024 * 1024


@dataclass
class ScanStats:
    bytes: int = 0
    lines: int = 0


class PatternSet:
    """Patterns compiled once: (id, regex, ignore_case).

    >>> ps = PatternSet([(1, r"NCCL WARN", False), (2, r"error", True)])
    >>> import io
    >>> seen = []
    >>> scan_stream(io.BytesIO(b"ok\\nNCCL WARN x\\nERROR y\\n"), ps, lambda n, l, ids: seen.append((n, ids)))
    ScanStats(bytes=23, lines=3)
    >>> seen
    [(2, [1]), (3, [2])]
    """

    def __init__(self, patterns: Sequence[tuple[int, str, bool]]) -> None:
        self.patterns = list(patterns)
        self._compiled = [
            (pid, re.compile(rx.encode(), re.IGNORECASE if ic else 0)) for pid, rx, ic in patterns
        ]

    def match(self, line: bytes) -> list[int]:
        return [pid for pid, rx in self._compiled if rx.search(line)]


def scan_stream(
    stream: ByteStream, ps: PatternSet, on_line: Callable[[int, bytes, list[int]], None]
) -> ScanStats:
    """Call `on_line(line_no, line, ids)` for each line matching at least one pattern."""
    stats = ScanStats()
    line_no = 0
    pending = b""
    truncated = False  # inside an over-long line whose head was already handled
    while True:
        chunk = stream.read(_CHUNK)
        if not chunk:
            break
        stats.bytes += len(chunk)
        data = pending + chunk if pending else chunk
        start = 0
        while True:
            nl = data.find(b"\n", start)
            if nl < 0:
                break
            line_no += 1
            if not truncated:
                _emit(line_no, data[start:nl][:MAX_LINE], ps, on_line)
            truncated = False
            start = nl + 1
        pending = data[start:]
        if len(pending) > MAX_LINE:
            if not truncated:
                _emit(line_no + 1, pending[:MAX_LINE], ps, on_line)
            truncated = True
            pending = b""
    if pending and not truncated:
        line_no += 1
        _emit(line_no, pending, ps, on_line)
    elif truncated:
        line_no += 1
    stats.lines = line_no
    return stats


def _emit(
    line_no: int, line: bytes, ps: PatternSet, on_line: Callable[[int, bytes, list[int]], None]
) -> None:
    if line.endswith(b"\r"):
        line = line[:-1]
    ids = ps.match(line)
    if ids:
        on_line(line_no, line, ids)
