"""CPU time of `kb diagnose` on a console of training progress lines, the commonest big log.

    python benchmarks/bench_progress.py --size-mb 200 --ranks 8 --runs 3

The console is generated (benchmarks/generate_evidence.py's step lines behind torchrun's
`[rankN]:` prefix, all ranks interleaved in one file, as `--tee 3` writes them), not a real
log. Each run is a fresh `kb diagnose` process on a filled cache (one run beforehand fills
it); CPU time is the child's user + system time, the figure to compare on a shared machine.
The same file is also counted with `grep -c`, the reference a user compares with, and the
ratio of the two CPU times is printed, so runs on a busy machine stay comparable.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate_evidence as gen  # noqa: E402


def write_console(path: Path, size_mb: float, ranks: int, seed: int = 7) -> None:
    """`size_mb` MB of progress lines of `ranks` ranks, round-robin."""
    states = [gen.Rank(r, ranks, random.Random(seed + r)) for r in range(ranks)]
    limit = int(size_mb * 1e6)
    written = 0
    with open(path, "w", encoding="utf-8") as f:
        while written < limit:
            rows = [f"[rank{r.rank}]:{gen.step_log(r)}\n" for r in states]
            block = "".join(rows)
            f.write(block)
            written += len(block)


def ensure(out: Path, size_mb: float, ranks: int) -> Path:
    folder = out / f"progress-{size_mb:g}mb-{ranks}r"
    path = folder / "console.log"
    marker = folder / ".complete"
    if not marker.exists():
        folder.mkdir(parents=True, exist_ok=True)
        print(f"# generating {size_mb:g} MB in {path} ...", file=sys.stderr)
        write_console(path, size_mb, ranks)
        marker.write_text("ok\n")
    return folder


def cpu_of(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int, float]:
    """(CPU s, wall s, exit code, peak RSS MiB) of one fresh process."""
    start = time.perf_counter()
    # a pipe, not /dev/null: GNU grep stops at the first match when its output is /dev/null
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdout is not None
    proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, wall, code, usage.ru_maxrss / 1024


def _kb() -> list[str]:
    exe = Path(sys.executable).parent / "kb"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "kb.cli.main"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mb", type=float, default=200)
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", type=Path, default=Path("/tmp/kb-bench"))
    args = ap.parse_args(argv)
    folder = ensure(args.out, args.size_mb, args.ranks)
    size = sum(p.stat().st_size for p in folder.iterdir() if p.is_file() and p.name[0] != ".")
    env = dict(os.environ, KB_CACHE_DIR=str(args.out / f"cache-progress-{os.getpid()}"))
    env.pop("KB_CASES", None)
    cmd = [*_kb(), "diagnose", "--evidence", str(folder)]
    first = cpu_of(cmd, env)  # fills the compile cache and the scan databases
    runs = sorted(cpu_of(cmd, env) for _ in range(args.runs))
    grep = cpu_of(["grep", "-c", "step=", str(folder / "console.log")], env)
    cpu, wall, code, peak = runs[len(runs) // 2]
    print(f"# {size / 1e6:.0f} MB, {args.ranks} ranks in one console; load average "
          f"{os.getloadavg()[0]:.1f}; MB = 10^6 bytes")  # fmt: skip
    print(f"{'row':<34} {'CPU s':>7} {'wall s':>7} {'MB/s CPU':>9} {'peak MiB':>9} {'exit':>5}")
    for label, (c, w, e, p) in (
        ("kb diagnose, first run", first),
        (f"kb diagnose, median of {args.runs}", (cpu, wall, code, peak)),
        ("grep -c step=", grep),
    ):
        print(f"{label:<34} {c:>7.2f} {w:>7.2f} {size / 1e6 / max(c, 1e-9):>9.0f} {p:>9.0f} {e:>5}")
    print(f"# kb diagnose (median) / grep -c, CPU in the same run: {cpu / max(grep[0], 1e-9):.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
