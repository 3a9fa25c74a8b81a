"""The benchmark script runs end to end on a small folder and every row holds a figure.

A row whose child process failed prints "-" and the error instead of MB/s; such a row would
otherwise only be noticed the next time someone measures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # generates and scans a log corpus

ROOT = Path(__file__).resolve().parents[2]


def test_every_row_has_a_throughput(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_scan.py"), "--size-mb", "1",
         "--ranks", "4", "--patterns", "20", "--engines", "hyperscan", "--workers", "2",
         "--out", str(tmp_path)],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    rows = [line.split("|")[1:-1] for line in out.stdout.splitlines() if line.startswith("| ")]
    names = [cells[0].strip() for cells in rows[1:]]  # rows[0] is the header
    for expected in ("hyperscan x2 proc", "hyperscan scan only, case patterns x2",
                     "hyperscan scan only, case + reader patterns x2", "kb read_evidence"):  # fmt: skip
        assert expected in names, names
    for cells in rows[1:]:
        # a figure, not "-": on a busy machine a small folder can round to 0 MB/s
        assert float(cells[5]) >= 0, cells  # MB/s
    assert "exit 0" in out.stdout.splitlines()[-1]
