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

# the rank a line is attributed to (`ranks.strip_prefixes`) is N for sure: one `[rankN]:`
# (any case), then only prefixes that are not ranks, then a body that opens with no other
# prefix (`[`, `(`) or space (Python's `\s` is wider than the bytes one)
_RANKED = re.compile(
    rb"^\[[Rr][Aa][Nn][Kk](\d{1,9})\]: ?"
    rb"(?:\[(?![Rr][Aa][Nn][Kk]\d)[A-Za-z_]+?\d{1,9}\]: ?){0,2}"
    rb"(?=[\x21-\x27\x2a-\x5a\x5c-\x7e])",
    re.MULTILINE,
)


def block_ranks(buf: bytes | bytearray, end: int) -> set[int] | None:
    """The ranks of the lines in buf[:end] when every line has a plain `[rankN]:` prefix,
    else None."""
    if end <= 0:
        return None
    found = _RANKED.findall(buf, 0, end)
    lines = buf.count(b"\n", 0, end) + (buf[end - 1] != 10)
    if len(found) != lines:
        return None
    return {int(n) for n in set(found)}


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
