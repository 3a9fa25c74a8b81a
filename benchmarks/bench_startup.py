"""CPU time of `kb` invocations that should answer at once, and what their imports cost.

    python benchmarks/bench_startup.py --runs 5

Each row is a fresh process; the figure is the child's CPU (user + system, from
os.wait4's rusage), the one to compare on a shared machine (wall time also measures the
load). `python -c pass` is the floor no command can go under. The last table is
`python -X importtime` for `kb --help`: the modules with the largest cumulative import
time, so a heavy import that creeps back in is named.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = {
    "python -c pass (floor)": [sys.executable, "-c", "pass"],
    "kb --help": ["KB", "--help"],
    "kb --version": ["KB", "--version"],
    "kb diagnose --help": ["KB", "diagnose", "--help"],
    "kb diagnose --bad-option": ["KB", "diagnose", "--bad-option"],
    "kb no-such-command": ["KB", "no-such-command"],
}


def _kb() -> list[str]:
    exe = Path(sys.executable).parent / "kb"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "kb.cli.main"]


def cpu_of(argv: list[str]) -> float:
    """CPU seconds (user + system) of one run of `argv` in a fresh process."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_utime + usage.ru_stime


def import_top(n: int) -> list[tuple[int, str]]:
    """(cumulative microseconds, module) of the `n` slowest imports of `kb --help`."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "kb.cli.main", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    return importtime_top(proc.stderr, n)


def importtime_top(stderr: str, n: int) -> list[tuple[int, str]]:
    """The n modules `python -X importtime` says took longest (cumulative us, name)."""
    rows = []
    for line in stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    return sorted(rows, reverse=True)[:n]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--top", type=int, default=12, help="importtime rows shown")
    args = ap.parse_args(argv)
    kb = _kb()
    print(f"# {args.runs} runs each; load average {os.getloadavg()[0]:.1f}")
    print(f"{'command':<28} {'median CPU s':>12} {'best CPU s':>11}")
    for label, cmd in CASES.items():
        full = [*kb, *cmd[1:]] if cmd[0] == "KB" else cmd
        cpus = sorted(cpu_of(full) for _ in range(args.runs))
        print(f"{label:<28} {cpus[len(cpus) // 2]:>12.3f} {cpus[0]:>11.3f}")
    print(f"\n# python -X importtime -m kb.cli.main --help: top {args.top} (cumulative)")
    for micros, name in import_top(args.top):
        print(f"{micros / 1000:>8.1f} ms  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
