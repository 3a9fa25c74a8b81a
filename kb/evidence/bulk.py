"""Lines a case pattern has counted enough of, in a console of many ranks, left to the engine.

torchrun's `--tee`/`[rankN]:` consoles interleave every rank, so the file has no rank of its
own and a case pattern that matches each progress line (`step=…`, `'loss': …`) cost a Python
call per line: 200 MB of them took 20 s. A single-rank file mutes such a pattern once it
has `enough` lines (`dispatch.py`); here the same is decided block by block: when every line
of the next block carries a plain `[rankN]:` prefix and each of those ranks already has
`enough` lines of the pattern, the pattern is muted for that block. Its count then stays a
lower bound for those ranks only, as the single-rank mute leaves it; a rank with fewer lines
(the one that stopped) is never muted away, and a block with any other line is scanned whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

from kb.evidence.lazy_pattern import lazy

# every line of the block opens with `[rankN]:`; with no other `[rank` (any case) in the block,
# no line has a second rank prefix, so the rank `ranks.strip_prefixes` gives it is N
_FIRST = lazy(rb"\[rank(\d{1,9})\]:")
_NEXT = lazy(rb"\n\[rank(\d{1,9})\]:")  # led by a literal: tried at newlines only


# a `[rank` in any case that is not a line's own lowercase prefix: after a byte other than a
# newline, or with a capital in it (a line's prefix is checked to be lowercase apart)
_STRAY = lazy(rb"\[(?:(?<=[^\n]\[)rank|R[aA][nN][kK]|rA[nN][kK]|raN[kK]|ranK)")


@lru_cache(maxsize=8)
def _other_line(known: frozenset[int]) -> re.Pattern[bytes]:
    """A newline not followed by `[rankN]:` with N in `known`, nor by the end."""
    ranks = "|".join(str(r) for r in sorted(known))
    return re.compile(rb"\n(?!\[rank(?:" + ranks.encode() + rb")\]:|\Z)")


def block_ranks(buf: bytes | bytearray, end: int, known: Iterable[int] = ()) -> set[int] | None:
    """The ranks of the lines in buf[:end] when every line opens with a plain `[rankN]:`
    prefix and no line holds another, else None.

    `known`: ranks the block is likely to hold (those counted so far). When every line is one
    of theirs, the answer takes a few searches of the block in C, not a Python object per
    line; any other block is looked at line by line, with the same answer."""
    if end <= 0:
        return None
    first = _FIRST.match(buf, 0, end)
    if first is None:
        return None
    head = int(first.group(1))
    ranks = frozenset(r for r in known if 0 <= r < 10**9) | {head}  # as `\d{1,9}` reads
    if (
        first.group(1) == str(head).encode()  # `[rank01]:` is not spelt like a known rank
        and _other_line(ranks).search(buf, 0, end) is None
    ):
        if _STRAY.search(buf, 0, end) is not None:
            return None
        return {head} | {r for r in ranks if buf.find(b"\n[rank%d]:" % r, 0, end) >= 0}
    found = _NEXT.findall(buf, 0, end)
    lines = buf.count(b"\n", 0, end) + (buf[end - 1] != 10)
    if len(found) + 1 != lines:
        return None
    if buf[:end].lower().count(b"[rank") != lines:
        return None
    return {int(first.group(1)), *(int(n) for n in set(found))}


def mutable(
    ranks: set[int],
    counts: Mapping[str, Mapping[int, int]],
    enough: Mapping[str, int],
    indexes: Mapping[str, Iterable[int]],
) -> tuple[set[int], list[str]]:
    """(pattern indexes, their keys) whose every rank in `ranks` has `enough` lines."""
    out: set[int] = set()
    keys: list[str] = []
    for key, limit in enough.items():
        counter = counts.get(key)
        if counter and key in indexes and all(counter.get(r, 0) >= limit for r in ranks):
            out.update(indexes[key])
            keys.append(key)
    return out, keys
