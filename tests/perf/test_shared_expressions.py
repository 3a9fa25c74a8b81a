"""Patterns with the same expression are compiled once (kb.scan.shared) and still each
report their own hits, muting and long lines included, on every engine."""

from __future__ import annotations

import pytest
from scanlog import scan_log

from kb.scan.engine import ENGINES, PatternSet
from kb.scan.shared import Shared, distinct

LOG = (
    b"NCCL WARN timeout on rank 3\n"
    b"plain line\n"
    b"RuntimeError: CUDA out of memory\n" + b"x" * 5000 + b" NCCL WARN inside a long line\n"
    b"nccl warn lower case\n"
)
# ids 10 and 12 share an expression; 11 is the same text but case-insensitive (not shared)
PATTERNS = [
    (10, r"NCCL WARN", False),
    (11, r"NCCL WARN", True),
    (12, r"NCCL WARN", False),
    (13, r"out of memory", False),
    (14, r"out of memory", False),
]


def _scan(ps: PatternSet, muted: set[int] | None = None) -> list[tuple[int, list[int]]]:
    return scan_log(LOG, ps, muted)


def _reference(engine: str, muted: set[int] | None = None) -> list[tuple[int, list[int]]]:
    """Each pattern scanned alone with the same engine, merged per line."""
    lines: dict[int, list[int]] = {}
    for index, pattern in enumerate(PATTERNS):
        if muted and index in muted:
            continue
        for no, _ in _scan(PatternSet([pattern], engine=engine)):
            lines.setdefault(no, []).append(pattern[0])
    return sorted((no, sorted(ids)) for no, ids in lines.items())


def test_distinct_groups_same_expression_and_flags() -> None:
    order, members = distinct([b"a", b"b", b"a", b"a"], [1, 1, 1, 3])
    assert order == [0, 1, 3]
    assert members == [[0, 2], [1], [3]]


@pytest.mark.parametrize("engine", ENGINES)
def test_shared_expressions_report_every_pattern(engine: str) -> None:
    ps = PatternSet(PATTERNS, engine=engine)
    assert isinstance(ps.backend, Shared)
    assert len(ps.backend.members) == 3
    got = _scan(ps)
    assert got == _reference(engine)
    assert (1, [10, 11, 12]) in got
    assert (5, [11]) in got
    if engine == "hyperscan":  # RE2 cannot stream: it sees a long line's head only
        assert (4, [10, 11, 12]) in got


@pytest.mark.parametrize("engine", ENGINES)
def test_muting_one_of_a_shared_pair_keeps_the_other(engine: str) -> None:
    ps = PatternSet(PATTERNS, engine=engine)
    assert _scan(ps, muted={0}) == _reference(engine, muted={0})  # 12 still reports
    assert _scan(ps, muted={0, 2, 3}) == _reference(engine, muted={0, 2, 3})  # 14 still reports


@pytest.mark.parametrize("engine", ENGINES)
def test_no_wrapper_without_duplicates(engine: str) -> None:
    ps = PatternSet([(0, "a+b", False), (1, "c", False)], engine=engine)
    assert not isinstance(ps.backend, Shared)
