"""Byte budgets for decompression, so a small gzip or zip bomb is stopped and reported."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Protocol

from kb.evidence.limits import Limits


class ByteStream(Protocol):
    """What the reader needs from any input stream (files, gzip, tar and zip members)."""

    def read(self, size: int = -1, /) -> bytes: ...

    def close(self) -> None: ...


class InflateLimitError(Exception):
    """Raised by `BoundedReader` when a stream inflates past a limit; the message is the reason."""


class InflateBudget:
    """Bytes still allowed to be inflated in this process (shared by every compressed stream)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.remaining = limits.total_inflated

    def take(self, n: int) -> None:
        self.remaining -= n
        if self.remaining < 0:
            raise InflateLimitError(
                f"decompression limit reached: more than {self.limits.total_inflated} bytes "
                "inflated in total"
            )


class BoundedReader(io.RawIOBase):
    """Wraps a decompressing stream; counts what it yields against the per-member and total budgets.

    `compressed` returns how many compressed bytes were consumed so far (or the member's compressed
    size), for the bomb ratio check.

    >>> import gzip
    >>> blob = gzip.compress(b"\\0" * 100_000)
    >>> lim = Limits(member_inflated=10_000)
    >>> r = BoundedReader(gzip.GzipFile(fileobj=io.BytesIO(blob)), InflateBudget(lim), lambda: len(blob))
    >>> try:
    ...     _ = r.read()
    ... except InflateLimitError as e:
    ...     print(e)
    decompression bomb: more than 10000 bytes inflated from one stream
    """

    def __init__(
        self, raw: ByteStream, budget: InflateBudget, compressed: Callable[[], int]
    ) -> None:
        self._raw = raw
        self._budget = budget
        self._compressed = compressed
        self.inflated = 0
        self._error: InflateLimitError | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.read(len(b))
        n = len(data)
        b[:n] = data
        return n

    def read(self, size: int | None = -1) -> bytes:
        if self._error is not None:
            raise self._error
        data = self._raw.read(size if size is not None and size >= 0 else 1 << 20)
        n = len(data)
        self.inflated += n
        lim = self._budget.limits
        try:
            if self.inflated > lim.member_inflated:
                raise InflateLimitError(
                    f"decompression bomb: more than {lim.member_inflated} bytes inflated from one stream"
                )
            if self.inflated > lim.ratio_floor:
                packed = max(self._compressed(), 1)
                if self.inflated / packed > lim.max_ratio:
                    raise InflateLimitError(
                        f"decompression bomb: {self.inflated} bytes inflated from {packed} "
                        f"(ratio above {lim.max_ratio}:1)"
                    )
            self._budget.take(n)
        except InflateLimitError as exc:
            self._error = exc
            raise
        return data

    def close(self) -> None:
        try:
            self._raw.close()
        finally:
            super().close()


class PrefixedStream(io.RawIOBase):
    """A stream whose first bytes were already read (the sniffed head) followed by the rest."""

    def __init__(self, head: bytes, rest: ByteStream) -> None:
        self._head = head
        self._pos = 0
        self._rest = rest

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            out = self._head[self._pos :] + self._rest.read()
            self._pos = len(self._head)
            return out
        if self._pos < len(self._head):
            out = self._head[self._pos : self._pos + size]
            self._pos += len(out)
            return out
        return self._rest.read(size)

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)
