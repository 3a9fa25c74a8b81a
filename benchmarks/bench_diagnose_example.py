"""Wall time and peak memory of `kb diagnose` on the bundled example, as a new user runs it.

    python benchmarks/bench_diagnose_example.py --runs 5 --baseline 8c8fb85

Rows: the case set of this checkout and, with --baseline REV, the case set of an older
commit (its `cases/` extracted with `git archive`, run with `--no-bundled --cases`), so a
growing knowledge base is measured against the one it grew from with the same code. With
--pack N, a synthetic pack of N cases: the bundled cases and renamed copies of them (the
same patterns again under new ids, with the whole catalogue), the growth issue 27 plans for. Each
set is run cold (an empty compile cache: every case parsed, checked and compiled, scan
databases built) and warm (cache filled). Every run is a fresh process; peak RSS and CPU
time (user + system) are the child's (ru_maxrss and ru_utime + ru_stime of the waited
child). CPU time is the figure to compare on a shared machine: wall time also measures the
load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "hang-at-eval-8gpu"


def _kb() -> list[str]:
    exe = Path(sys.executable).parent / "kb"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "kb.cli.main"]


def _run_once(extra: list[str], cache: Path) -> tuple[float, float, int, float]:
    """(wall seconds, peak RSS MiB, exit code, CPU seconds) of one `kb diagnose` in a fresh
    process."""
    env = dict(os.environ, KB_CACHE_DIR=str(cache))
    env.pop("KB_CASES", None)
    start = time.perf_counter()
    proc = subprocess.Popen(
        [*_kb(), "diagnose", *extra, "--evidence", str(EXAMPLE)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    cpu = usage.ru_utime + usage.ru_stime
    return wall, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), cpu


def measure(
    extra: list[str], runs: int, work: Path
) -> dict[str, tuple[float, float, float, float]]:
    """Median wall, best wall, max peak RSS and median CPU, cold and warm."""
    rows: dict[str, tuple[float, float, float, float]] = {}
    cold, warm = [], []
    for k in range(runs):
        cache = work / f"cache-{k}"
        shutil.rmtree(cache, ignore_errors=True)
        cold.append(_run_once(extra, cache))
        warm.append(_run_once(extra, cache))
    for name, got in (("cold", cold), ("warm", warm)):
        walls = sorted(w for w, _, _, _ in got)
        cpus = sorted(c for _, _, _, c in got)
        codes = {c for _, _, c, _ in got}
        if codes - {0, 1}:
            raise SystemExit(f"kb diagnose failed ({name}): exit codes {sorted(codes)}")
        peak = max(m for _, m, _, _ in got)
        rows[name] = (walls[len(walls) // 2], walls[0], peak, cpus[len(cpus) // 2])
    return rows


def case_count(folder: Path) -> int:
    return len(list(folder.glob("*/case.kb")))


def synthetic_pack(count: int, into: Path) -> Path:
    """`count` cases: every bundled case, then renamed copies of them in turn (`<id>-copyK`,
    fixtures included, so each copy passes the same checks as its original)."""
    bundled = sorted(p.parent for p in (ROOT / "cases").glob("*/case.kb"))
    into.mkdir(parents=True)
    for folder in bundled[:count]:
        shutil.copytree(folder, into / folder.name)
    for k in range(max(0, count - len(bundled))):
        folder = bundled[k % len(bundled)]
        new_id = f"{folder.name}-copy{k // len(bundled) + 1}"
        shutil.copytree(folder, into / new_id)
        case = into / new_id / "case.kb"
        text = case.read_text(encoding="utf-8")
        head = f"case {folder.name} {{"
        if head not in text:
            raise SystemExit(f"{case}: no `{head}` line to rename")
        case.write_text(text.replace(head, f"case {new_id} {{", 1), encoding="utf-8")
    return into


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--baseline", help="a git revision whose cases/ is the baseline row")
    ap.add_argument("--pack", type=int, help="also a synthetic pack of this many cases")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kb-bench-diag-") as tmp:
        work = Path(tmp)
        sets = [(f"this checkout ({case_count(ROOT / 'cases')} cases)", [])]
        if args.baseline:
            base = work / "baseline"
            base.mkdir()
            archive = subprocess.run(
                ["git", "-C", str(ROOT), "archive", args.baseline, "cases"],
                capture_output=True,
                check=True,
            ).stdout
            subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
            sets.insert(
                0,
                (
                    f"{args.baseline} ({case_count(base / 'cases')} cases)",
                    ["--no-bundled", "--cases", str(base / "cases")],
                ),
            )
        if args.pack:
            pack = synthetic_pack(args.pack, work / "pack")
            sets.append(
                (
                    f"synthetic pack ({case_count(pack)} cases)",
                    ["--no-bundled", "--cases", str(pack)],
                )
            )
        print(
            f"# kb diagnose --evidence {EXAMPLE.relative_to(ROOT)}, {args.runs} runs each; "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        print(
            f"{'case set':<34} {'run':<5} {'median s':>9} {'best s':>8} {'CPU s':>7} "
            f"{'peak MiB':>9}"
        )
        for label, extra in sets:
            for name, (median, best, peak, cpu) in measure(extra, args.runs, work).items():
                print(f"{label:<34} {name:<5} {median:>9.2f} {best:>8.2f} {cpu:>7.2f} {peak:>9.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
