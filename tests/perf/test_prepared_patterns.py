"""The on-disk record of a checked pattern set (kb.scan.prepared): reused when it fits,
ignored when it is corrupt or foreign, and never a way around the checks."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from kb.scan import prepared
from kb.scan.engine import PatternSet, scan_stream

PATTERNS = [(0, r"NCCL WARN [a-z]+", False), (1, r"rank\s\d+ [a-z]", True), (2, r"oom$", False)]
LOG = b"NCCL WARN timeout\nRANK 3 hello\nno match\nkilled: oom\nrank 1 x\n"


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("KB_SCAN_CACHE", raising=False)
    return tmp_path / "scan"


def _hits(ps: PatternSet) -> list[tuple[int, list[int]]]:
    got: list[tuple[int, list[int]]] = []
    scan_stream(io.BytesIO(LOG), ps, lambda no, _raw, ids: got.append((no, sorted(ids))))
    return got


def _record(folder: Path) -> Path:
    found = list(folder.glob(f"*{prepared.SUFFIX}"))
    assert len(found) == 1, found
    return found[0]


def test_a_checked_set_is_recorded_and_reused(_cache: Path) -> None:
    first = _hits(PatternSet(PATTERNS, engine="re2"))
    _record(_cache)
    key = prepared.record_key(tuple(PATTERNS), "re2")
    record = prepared.load(key, len(PATTERNS))
    assert record is not None
    exprs, verify = record[0], record[1]
    assert len(exprs) == len(PATTERNS)
    assert 1 in verify  # `\s` can consume a newline: re-checked on the line
    assert _hits(PatternSet(PATTERNS, engine="re2")) == first
    assert first == [(1, [0]), (2, [1]), (4, [2]), (5, [1])]


def _foreign(blob: bytes) -> bytes:
    return prepared.MAGIC + b"someone-else" + blob[blob.index(b"\n", len(prepared.MAGIC)) :]


def _tampered(blob: bytes) -> bytes:  # the right header, a body its hash does not match
    return blob[:-1] + bytes([blob[-1] ^ 1])


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda blob: b"\x00\xffnot a record",
        lambda blob: b"",
        lambda blob: blob[: len(blob) // 2],  # cut short
        _foreign,
        _tampered,
        lambda blob: json.dumps({"exprs": ["a", "b", "c"], "verify": [7]}).encode(),  # the old JSON
    ],
)
def test_a_corrupt_or_foreign_record_is_ignored(
    _cache: Path, corrupt: Callable[[bytes], bytes]
) -> None:
    expected = _hits(PatternSet(PATTERNS, engine="re2"))
    path = _record(_cache)
    key = prepared.record_key(tuple(PATTERNS), "re2")
    path.write_bytes(corrupt(path.read_bytes()))
    assert prepared.load(key, len(PATTERNS)) is None
    assert _hits(PatternSet(PATTERNS, engine="re2")) == expected  # rebuilt, no crash
    assert prepared.load(key, len(PATTERNS)) is not None  # and written again, whole


def test_a_bad_pattern_is_refused_and_never_recorded(_cache: Path) -> None:
    bad = [(0, r"(a)\1", False)]  # a backreference needs a backtracking engine
    for _ in range(2):
        with pytest.raises(ValueError, match="backtracking"):
            PatternSet(bad, engine="re2")
    assert not list(_cache.glob(f"*{prepared.SUFFIX}")) if _cache.exists() else True


def test_no_record_when_the_scan_cache_is_off(
    _cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KB_SCAN_CACHE", "0")
    assert _hits(PatternSet(PATTERNS, engine="re2"))
    assert not _cache.exists() or not list(_cache.glob(f"*{prepared.SUFFIX}"))
