"""The byte-level shortcut of the hot path, in one place, so the readable reading logic
(classification, rank attribution, facts) does not spell it out.

Every way a line names a rank spells "rank" in some case (`[rank3]:`, `[Rank 3]`, `RankID`,
`userRank[3]`, `rank[3]`), so a line without the letters "ank" can only be its file's rank.
The scanner's `Tally` uses the bytes as a veto; the context and the sources ask
`may_name_rank`. A line that opens with torchrun's `[rankN]:` and spells `[rank` nowhere
else is rank N (`prefix_rank`), which a console's counted lines need and nothing more.
"""

from __future__ import annotations

from kb.evidence.lazy_pattern import lazy

_PLAIN_PREFIX = lazy(rb"\[rank(\d{1,9})\]:")

RANK_BYTES = b"ank"  # lowered: what every rank-naming spelling contains
RANK_LETTERS = "ank"


def may_name_rank(raw: bytes | str) -> bool:
    """False when the line cannot name a rank of its own (it never spells `rank`).

    >>> may_name_rank(b"[RANK 3] x"), may_name_rank("userRank[1]"), may_name_rank(b"loss 0.3")
    (True, True, False)
    """
    if isinstance(raw, str):
        return RANK_LETTERS in raw.lower()
    return RANK_BYTES in raw.lower()


def prefix_rank(raw: bytes) -> int | None:
    """N when the line opens with `[rankN]:` and holds no other `[rank` (any case): the rank
    `FileContext.line` gives it (its prefixes are read in turn and a later rank prefix would
    win; none but this one spells `[rank`), found without decoding. None: decode the line.

    >>> prefix_rank(b"[rank3]:[default3]: step=1"), prefix_rank(b"[rank3]:[RANK4]: x")
    (3, None)
    >>> prefix_rank(b"[rank03]: x"), prefix_rank(b" [rank3]: x"), prefix_rank(b"step=1")
    (3, None, None)
    """
    if not raw.startswith(b"[rank"):
        return None
    m = _PLAIN_PREFIX.match(raw)
    if m is None or raw.lower().count(b"[rank") != 1:
        return None
    return int(m.group(1))
