"""One engine entry per distinct expression, however many patterns ask for it.

An expression is a pattern's top-level alternative (`kb.scan.syntax.alternatives`), so a
wording that several cases put in their alternations is compiled and matched once: 1,291
distinct alternatives among 2,073 in 622 patterns of the bundled set, a database that
compiles in about 60% of the time of the whole patterns'.

Cases share wordings (a catalogue message named by several cases, the same notes phrase in
many): 483 distinct expressions among 538 patterns in the bundled log set, and the share
grows with the number of cases. Compiling and matching each once saves engine compile time
and one callback per duplicate hit. `Shared` wraps a backend built over the distinct
expressions and answers in pattern indexes, so the scanner sees no difference.
"""

from __future__ import annotations

from typing import Any


def distinct(exprs: list[bytes], flags: list[int]) -> tuple[list[int], list[list[int]]]:
    """(index of each distinct (expression, flags) among the patterns' first uses,
    pattern indexes of each distinct one)."""
    first: dict[tuple[bytes, int], int] = {}
    members: list[list[int]] = []
    order: list[int] = []
    for i, key in enumerate(zip(exprs, flags, strict=True)):
        u = first.get(key)
        if u is None:
            first[key] = len(members)
            members.append([i])
            order.append(i)
        else:
            members[u].append(i)
    return order, members


def units(
    alternatives: list[list[bytes]], flags: list[int]
) -> tuple[list[bytes], list[int], list[list[int]]]:
    """(distinct expressions, their flags, pattern indexes of each) over every pattern's
    alternatives: a pattern hits a line iff one of its alternatives does, and an alternative
    many patterns share (a catalogue wording in several cases' alternations) is one entry."""
    first: dict[tuple[bytes, int], int] = {}
    exprs: list[bytes] = []
    uflags: list[int] = []
    members: list[list[int]] = []
    for i, (alts, flag) in enumerate(zip(alternatives, flags, strict=True)):
        for expr in alts:
            u = first.get((expr, flag))
            if u is None:
                u = first[(expr, flag)] = len(exprs)
                exprs.append(expr)
                uflags.append(flag)
                members.append([])
            if not members[u] or members[u][-1] != i:
                members[u].append(i)
    return exprs, uflags, members


class Shared:
    """A backend over distinct expressions, reporting codes `end * n + pattern_index`."""

    def __init__(self, inner: Any, members: list[list[int]], n: int) -> None:
        self.inner, self.members, self.n = inner, members, n
        self.entries_of: list[list[int]] = [[] for _ in range(n)]  # a pattern's entries
        for u, group in enumerate(members):
            for i in group:
                self.entries_of[i].append(u)

    def _muted(self, muted: set[int] | None) -> set[int] | None:
        """Distinct indexes all of whose patterns are muted (others still need their hits;
        the scanner drops the muted patterns' own)."""
        if not muted:
            return None
        entries_of = self.entries_of  # every entry of a pattern, not only its last one
        out = {
            u
            for u in {u for i in muted if 0 <= i < self.n for u in entries_of[i]}
            if all(i in muted for i in self.members[u])
        }
        return out or None

    def scan_block(self, data: memoryview, muted: set[int] | None = None) -> list[int]:
        nu, n, members = self.inner.n, self.n, self.members
        out: list[int] = []
        for code in self.inner.scan_block(data, self._muted(muted)):
            end, u = divmod(code, nu)
            base = end * n
            out.extend(base + i for i in members[u])
        return out

    def alone(self, line: bytes, indexes: set[int]) -> set[int]:
        """Which of `indexes` match inside `line` alone (a pattern iff one of its entries)."""
        entries_of = self.entries_of
        found = self.inner.alone(line, {u for i in indexes for u in entries_of[i]})
        return {i for i in indexes if any(u in found for u in entries_of[i])}

    def line_stream(self, limit: int) -> _SharedLine:
        return _SharedLine(self.inner.line_stream(limit), self.members)


class _SharedLine:
    def __init__(self, inner: Any, members: list[list[int]]) -> None:
        self.inner, self.members = inner, members

    def feed(self, piece: memoryview) -> None:
        self.inner.feed(piece)

    def close(self) -> set[int]:
        return {i for u in self.inner.close() for i in self.members[u]}
