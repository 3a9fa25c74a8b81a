"""Small helpers shared by sources: op-name normalization and head statistics."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from kb.evidence.lazy_pattern import lazy

_OP_PREFIX = lazy(r"^(?:hccl|nccl|c10d)_?")


@lru_cache(maxsize=1024)  # a log names a handful of ops, millions of times
def normalize_op(op: str) -> str:
    """One spelling for a collective across NCCL, HCCL, PyTorch and DETAIL fingerprints.

    >>> [normalize_op(o) for o in ("HcclAllReduce", "ALLREDUCE", "_ALLGATHER_BASE", "ReduceScatter",
    ...                            "_REDUCE_SCATTER_BASE", "ALLREDUCE_COALESCED", "Broadcast")]
    ['allreduce', 'allreduce', 'allgather', 'reducescatter', 'reducescatter', 'allreduce_coalesced', 'broadcast']
    """
    s = op.strip().lower().lstrip("_")
    s = _OP_PREFIX.sub("", s)
    if s.endswith("_base"):
        s = s[:-5]
    s = s.replace("_coalesced", "~coalesced").replace("_", "").replace("-", "").replace("~", "_")
    return s


def nonblank(lines: Iterable[str]) -> list[str]:
    return [ln for ln in lines if ln.strip()]


def fraction(head: str, rx: re.Pattern[str]) -> tuple[int, float]:
    """How many head lines match `rx`, and what share of the non-blank lines that is."""
    lines = nonblank(head.splitlines())
    if not lines:
        return 0, 0.0
    n = sum(1 for ln in lines if rx.search(ln))
    return n, n / len(lines)


def log_score(head: str, rx: re.Pattern[str]) -> float:
    """0 when no head line matches, else 0.3 + 0.6 × share of matching lines."""
    n, frac = fraction(head, rx)
    return 0.0 if n == 0 else 0.3 + 0.6 * frac


def product(dims: Iterable[int]) -> int:
    out = 1
    for d in dims:
        out *= d
    return out
