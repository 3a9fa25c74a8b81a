"""google-re2 fallback backend, for platforms without hyperscan wheels.

Why this shape: an RE2::Set tells in one linear pass which patterns occur in a chunk; only those
patterns are then searched (finditer, also linear) to find the matching lines, so rarely-hitting
patterns cost one shared pass. Slower than hyperscan but still never backtracks.

RE2 programs cannot be kept on disk, and the set costs more to build than a small text (the
user's notes) costs to match. Given each pattern's factor (`kb.scan.literals`), a small text
is searched only with the patterns whose factor it holds, each with its own program, and the
set is built on the first large text. Given each pattern's parts too, that program holds only
the alternatives the text may hold (`kb.scan.narrowed`: the same matches, a third of the
work).
"""

from __future__ import annotations

import re2

from kb.scan import literals, narrowed

FLAG_MULTILINE = 1 << 0
FLAG_CASELESS = 1 << 1
SMALL = 64 << 10  # bytes: a text this short is searched pattern by pattern (given factors)


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

    def __init__(
        self,
        exprs: list[bytes],
        flags: list[int],
        factors: list[literals.Requirement | None] | None = None,
        parts: list[narrowed.Parts | None] | None = None,
    ) -> None:
        """Without `factors` the set is compiled now (a pattern RE2 refuses raises here);
        with them (the patterns passed before), on the first text longer than SMALL.
        `parts`, given with `factors`: each pattern's alternatives, for a small text (a
        pattern with parts has no factor of its own: its alternatives' tell)."""
        self.n = len(exprs)
        self._exprs, self._flags = exprs, flags
        if factors is not None and len(factors) != self.n:
            raise ValueError(f"{len(factors)} factors for {self.n} patterns")
        if parts is not None and (factors is None or len(parts) != self.n):
            raise ValueError(f"{len(parts)} parts for {self.n} patterns")
        self._factors, self._parts = factors, parts
        # a narrowed program by its expression; the last small text, folded (`alone`)
        self._narrowed: dict[tuple[int, str], re2._Regexp] = {}
        self._checked: dict[int, bool] = {}  # parts found well formed (or not), by pattern
        self._small_text: str | None = None
        # Each pattern's own program is built the first time the Set says it occurs: a warm
        # `kb diagnose` otherwise compiles ~150 notes patterns of which a few ever hit.
        self._regexes: list[re2._Regexp | None] = [None] * self.n
        self._set: re2.Set | None = None if factors is not None else self._build_set()

    def _build_set(self) -> re2.Set:
        # A Set takes one Options for all; case-insensitivity goes inline instead.
        found = re2.Set.SearchSet(options())
        for e, f in zip(self._exprs, self._flags, strict=True):  # RE2 refusing one raises
            found.Add((b"(?i)" if f & FLAG_CASELESS else b"") + _prefixed(e, f))
        found.Compile()
        return found

    def _regex(self, idx: int) -> re2._Regexp:
        found = self._regexes[idx]
        if found is None:
            e, f = self._exprs[idx], self._flags[idx]
            found = self._regexes[idx] = re2.compile(
                _prefixed(e, f), options(bool(f & FLAG_CASELESS))
            )
        return found

    def _narrow(self, idx: int, folded: str | None) -> re2._Regexp | None:
        """The program for pattern `idx` in a text folded to `folded` (None: any text): only
        the alternatives the text may hold (`kb.scan.narrowed`); None when it holds none."""
        parts = self._parts[idx] if self._parts is not None and folded is not None else None
        if parts is None or not self._usable(idx, parts):
            return self._regex(idx)
        expr = narrowed.narrowed(parts, folded or "")
        if expr is None:
            return None
        if expr.encode() == self._exprs[idx]:
            return self._regex(idx)  # it may hold them all
        found = self._narrowed.get((idx, expr))
        if found is None:
            f = self._flags[idx]
            found = self._narrowed[(idx, expr)] = re2.compile(
                _prefixed(expr.encode(), f), options(bool(f & FLAG_CASELESS))
            )
        return found

    def _usable(self, idx: int, parts: narrowed.Parts) -> bool:
        """Whether pattern `idx`'s parts are as `narrowed.parts_of` writes them: they come
        from a record on disk, checked on first use (a bad one costs only speed: the whole
        pattern is matched instead)."""
        if idx not in self._checked:
            self._checked[idx] = narrowed.well_formed(parts)
        return self._checked[idx]

    def _present(self, data: bytes) -> list[int]:
        if self._set is None:
            self._set = self._build_set()
        return self._set.Match(data) or []

    def _candidates(self, text: bytes, folded: str | None) -> list[int]:
        """The patterns that may occur in `text`: the set's answer, or for a small text
        (`folded` given) every pattern whose factor it holds (one that holds none cannot
        match; the rest are searched, and a pattern with no match adds nothing, as if the
        set had left it out)."""
        if self._factors is None or folded is None:
            return self._present(text)
        return [i for i, runs in enumerate(self._factors) if literals.may_occur(runs, folded)]

    def scan_block(self, data: memoryview, muted: set[int] | None = None) -> list[int]:
        text = bytes(data)
        out: list[int] = []
        n = self.n
        small = self._factors is not None and len(text) <= SMALL
        folded = literals.fold(text) if small else None
        for idx in self._candidates(text, folded):
            if muted and idx in muted:
                continue
            program = self._narrow(idx, folded)
            if program is not None:
                out.extend(m.end() * n + idx for m in program.finditer(text))
        if folded is not None:
            self._small_text = folded
        return out

    def alone(self, line: bytes, indexes: set[int]) -> set[int]:
        """Which of `indexes` match inside `line` alone, each searched with the program the
        scan that found the hit used: narrowed to the last small text when the line is part
        of it (what that text lacks, the line lacks too), the whole pattern otherwise."""
        text = self._small_text
        folded = text if text is not None and literals.fold(line) in text else None
        out = set()
        for idx in indexes:
            program = self._narrow(idx, folded)
            if program is not None and program.search(line) is not None:
                out.add(idx)
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
