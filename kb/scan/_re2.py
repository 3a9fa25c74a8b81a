"""google-re2 fallback backend, for platforms without hyperscan wheels.

Why this shape: an RE2::Set tells in one linear pass which patterns occur in a chunk; only those
patterns are then searched (finditer, also linear) to find the matching lines, so rarely-hitting
patterns cost one shared pass. Slower than hyperscan but still never backtracks.
"""

from __future__ import annotations

import re2

FLAG_MULTILINE = 1 << 0
FLAG_CASELESS = 1 << 1


def options(caseless: bool = False) -> re2.Options:
    """Byte-oriented options (LATIN1: one byte is one character, as hyperscan sees it)."""
    opts = re2.Options()
    opts.encoding = re2.Options.Encoding.LATIN1
    opts.case_sensitive = not caseless
    opts.log_errors = False
    opts.max_mem = 64 << 20
    return opts


def _prefixed(expr: bytes, flags: int) -> bytes:
    return (b"(?m)" if flags & FLAG_MULTILINE else b"") + expr


def compile_error(expr: bytes, flags: int) -> str | None:
    try:
        re2.compile(_prefixed(expr, flags), options(bool(flags & FLAG_CASELESS)))
    except re2.error as exc:  # RE2 reports its message as bytes
        message = exc.args[0] if exc.args else exc
        return message.decode("utf-8", "replace") if isinstance(message, bytes) else str(message)
    return None


class Re2Backend:
    """Same contract as HyperscanBackend: codes `end_offset * n + pattern_index`."""

    def __init__(self, exprs: list[bytes], flags: list[int]) -> None:
        self.n = len(exprs)
        self._exprs, self._flags = exprs, flags
        # Each pattern's own program is built the first time the Set says it occurs: a warm
        # `kb diagnose` otherwise compiles ~150 notes patterns of which a few ever hit.
        self._regexes: list[re2._Regexp | None] = [None] * self.n
        # A Set takes one Options for all; case-insensitivity goes inline instead.
        self._set = re2.Set.SearchSet(options())
        for e, f in zip(exprs, flags, strict=True):  # a pattern RE2 refuses raises here
            self._set.Add((b"(?i)" if f & FLAG_CASELESS else b"") + _prefixed(e, f))
        self._set.Compile()

    def _regex(self, idx: int) -> re2._Regexp:
        found = self._regexes[idx]
        if found is None:
            e, f = self._exprs[idx], self._flags[idx]
            found = self._regexes[idx] = re2.compile(
                _prefixed(e, f), options(bool(f & FLAG_CASELESS))
            )
        return found

    def _present(self, data: bytes) -> list[int]:
        return self._set.Match(data) or []

    def scan_block(self, data: memoryview, muted: set[int] | None = None) -> list[int]:
        text = bytes(data)
        out: list[int] = []
        n = self.n
        for idx in self._present(text):
            if muted and idx in muted:
                continue
            out.extend(m.end() * n + idx for m in self._regex(idx).finditer(text))
        return out

    def line_stream(self, limit: int) -> Re2Line:
        return Re2Line(self, limit)


class Re2Line:
    """RE2 cannot stream: a long line is matched on its first `limit` bytes only."""

    def __init__(self, backend: Re2Backend, limit: int) -> None:
        self._backend, self._limit = backend, limit
        self._head = bytearray()

    def feed(self, piece: memoryview) -> None:
        room = self._limit - len(self._head)
        if room > 0:
            self._head += piece[:room]

    def close(self) -> set[int]:
        return set(self._backend._present(bytes(self._head)))
