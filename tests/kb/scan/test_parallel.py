"""map_files (benchmarks/parallel.py, the scan benchmark's process pool): order preserved,
serial fallback, results equal to a serial run."""

from __future__ import annotations

import io
import sys
from pathlib import Path

from kb.scan.engine import PatternSet, scan_stream

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
from parallel import map_files

_PS = PatternSet([(1, "ERR", False)])


def _count(path: str) -> tuple[str, int]:
    with open(path, "rb") as f:
        return Path(path).name, scan_stream(f, _PS, lambda *a: None).matched_lines


def test_order_and_results(tmp_path: Path) -> None:
    paths = []
    for i in range(7):
        p = tmp_path / f"f{i}.log"
        p.write_bytes(b"ok\nERR\n" * (i * 1000 + 1))
        paths.append(str(p))
    par = map_files(_count, paths, workers=2, serial_below_bytes=0)
    assert par == [_count(p) for p in paths]
    assert [m for _, m in par] == [i * 1000 + 1 for i in range(7)]


def test_serial_for_small_or_single() -> None:
    assert map_files(len, ["a", "bb"], workers=4) == [1, 2]  # non-path strs cost 0 bytes
    assert map_files(str, [1, 2, 3], workers=1) == ["1", "2", "3"]
    assert scan_stream(io.BytesIO(b"ERR"), _PS, lambda *a: None).matched_lines == 1
