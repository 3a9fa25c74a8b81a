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

from collections.abc import Iterable, Mapping

from kb.evidence.lazy_pattern import lazy

# every line of the block opens with `[rankN]:`; with no other `[rank` (any case) in the block,
# no line has a second rank prefix, so the rank `ranks.strip_prefixes` gives it is N
_FIRST = lazy(rb"\[rank(\d{1,9})\]:")
_NEXT = lazy(rb"\n\[rank(\d{1,9})\]:")  # led by a literal: tried at newlines only


def block_ranks(buf: bytes | bytearray, end: int) -> set[int] | None:
    """The ranks of the lines in buf[:end] when every line opens with a plain `[rankN]:`
    prefix and no line holds another, else None."""
    if end <= 0:
        return None
    first = _FIRST.match(buf, 0, end)
    if first is None:
        return None
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
