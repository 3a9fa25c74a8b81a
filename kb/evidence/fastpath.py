"""The byte-level shortcut of the hot path, in one place, so the readable reading logic
(classification, rank attribution, facts) does not spell it out.

Every way a line names a rank spells "rank" in some case (`[rank3]:`, `[Rank 3]`, `RankID`,
`userRank[3]`, `rank[3]`), so a line without the letters "ank" can only be its file's rank.
The scanner's `Tally` uses the bytes as a veto; the context and the sources ask
`may_name_rank`.
"""

from __future__ import annotations

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
