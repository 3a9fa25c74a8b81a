"""A muted pattern's database is rebuilt without it only once its dropped matches pay for
the compile (kb.scan._hyperscan): until then the full database answers, and the scanner
drops the muted hits, so the lines reported are the same either way."""

from __future__ import annotations

from pathlib import Path

import pytest
from scanlog import scan_log

from kb.scan.engine import ENGINES, PatternSet

pytestmark = pytest.mark.skipif("hyperscan" not in ENGINES, reason="hyperscan only")

LOG = b"".join(b"step=%d loss=0.5\n" % i for i in range(40)) + b"NCCL WARN peer closed\n"
PATTERNS = [(0, r"step=\d+", False), (1, r"NCCL WARN", False)]
EXPECTED = [(41, [1])]  # the muted step lines are never reported


@pytest.fixture(autouse=True)
def _own_disk_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No database of an earlier run (or test) on disk, unless the test writes it; no set
    built at once, except in the test of those."""
    from kb.scan import _hyperscan

    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_hyperscan, "EAGER_SETS", 0)


def test_the_first_sets_are_built_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.scan import _hyperscan

    monkeypatch.setattr(_hyperscan, "EAGER_SETS", 1)
    ps = PatternSet(PATTERNS, engine="hyperscan")
    compiles = _counting_compiles(monkeypatch)
    assert scan_log(LOG, ps, muted={0}) == EXPECTED
    assert len(compiles) == 1  # the first set: at once
    assert scan_log(LOG, ps, muted={1}) == [(i + 1, [0]) for i in range(40)]
    assert len(compiles) == 1  # the second waits for its dropped matches


def _counting_compiles(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    from kb.scan import _hyperscan

    calls: list[int] = []
    real = _hyperscan._compile

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_hyperscan, "_compile", counted)
    return calls


def test_a_muted_set_is_not_compiled_before_its_dropped_matches_pay(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ps = PatternSet(PATTERNS, engine="hyperscan")
    compiles = _counting_compiles(monkeypatch)
    assert scan_log(LOG, ps, muted={0}) == EXPECTED
    assert compiles == []  # 40 dropped matches: far below a compile's worth


def test_once_they_pay_the_set_is_rebuilt_and_answers_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from kb.scan import _hyperscan

    monkeypatch.setattr(_hyperscan, "REBUILD_AFTER_MATCHES_PER_EXPR", 1)
    ps = PatternSet(PATTERNS, engine="hyperscan")
    compiles = _counting_compiles(monkeypatch)
    assert scan_log(LOG, ps, muted={0}) == EXPECTED  # drops 40 matches, more than 2 x 1
    assert compiles == []
    assert scan_log(LOG, ps, muted={0}) == EXPECTED  # now with the database without 0
    assert len(compiles) == 1
    assert scan_log(LOG, ps, muted={0}) == EXPECTED  # kept for the set
    assert len(compiles) == 1


def test_a_set_an_earlier_run_built_is_loaded_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.scan import _hyperscan

    with monkeypatch.context() as earlier:
        earlier.setattr(_hyperscan, "REBUILD_AFTER_MATCHES_PER_EXPR", 1)
        ps = PatternSet(PATTERNS, engine="hyperscan")
        scan_log(LOG, ps, muted={0})
        scan_log(LOG, ps, muted={0})  # built, and written to the disk cache
    ps = PatternSet(PATTERNS, engine="hyperscan")  # a new run: nothing dropped yet
    compiles = _counting_compiles(monkeypatch)
    assert scan_log(LOG, ps, muted={0}) == EXPECTED
    assert len(compiles) == 1  # loaded from disk on the first muted block
