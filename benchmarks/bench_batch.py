"""Throughput and peak memory of `kb batch` on a local Ray instance, 1 and 2 workers.

    python benchmarks/bench_batch.py --jobs 200 --size-mb 3 --workers 1 2

Writes `--jobs` generated job folders (benchmarks/generate_evidence.py: NCCL, PyTorch and
Ascend logs of `--ranks` ranks, about `--size-mb` MiB each, one seed per job) and runs the
batch once per worker count, in this process, as `kb batch` does. Figures per run: wall time
(Ray start and shutdown included), jobs/s and MB/s; the peak RSS of one Ray worker (its own
ru_maxrss, reported by every task) and the peak of the whole process tree (this driver, the
Ray daemons and the workers, sampled from /proc every 0.2 s). With `--verify` every row is
compared with `kb diagnose` run in this process on the same job.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import generate_evidence as gen  # noqa: E402

PAGE = os.sysconf("SC_PAGE_SIZE")


def _tree_rss(root: int) -> int:
    """Bytes resident in `root` and every process below it."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        pid, ppid = int(entry), int(fields[1])
        children.setdefault(ppid, []).append(pid)
        rss[pid] = int(fields[21]) * PAGE
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, []))
    return total


class PeakSampler(threading.Thread):
    def __init__(self, every: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.every, self.peak, self._done = every, 0, threading.Event()

    def run(self) -> None:
        while not self._done.is_set():
            self.peak = max(self.peak, _tree_rss(os.getpid()))
            self._done.wait(self.every)

    def stop(self) -> int:
        self._done.set()
        self.join()
        return self.peak


def make_jobs(out: Path, jobs: int, size_mb: float, ranks: int) -> int:
    total = 0
    for i in range(jobs):
        folder = out / f"job-{i:04d}"
        if not folder.exists():
            gen.write_folder(folder, size_mb=size_mb, ranks=ranks, seed=1000 + i)
        total += sum(p.stat().st_size for p in folder.iterdir())
    return total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--jobs", type=int, default=200)
    ap.add_argument("--size-mb", type=float, default=3.0)
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--out", type=Path, default=None, help="job folders (kept; default: temp)")
    ap.add_argument("--verify", action="store_true", help="compare every row with kb diagnose")
    args = ap.parse_args(argv)
    if max(args.workers) > 2 and (os.cpu_count() or 1) <= 2:
        print("at most 2 workers on this machine", file=sys.stderr)
        return 2

    from dsl.api import DEFAULT_CASES
    from kb.batch.jobs import find_jobs
    from kb.batch.runner import run_batch
    from kb.batch.task import diagnose_job, load_kb

    with tempfile.TemporaryDirectory(prefix="kb-bench-batch-") as tmp:
        out = args.out or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        total = make_jobs(out, args.jobs, args.size_mb, args.ranks)
        print(
            f"{args.jobs} job folders, {total / 1e6:.0f} MB, generated in "
            f"{time.perf_counter() - started:.0f} s"
        )
        jobs, _ = find_jobs([str(out)])
        jobs = jobs[: args.jobs]
        print(
            "| workers | jobs | rows | wall s | jobs/s | MB/s | task CPU s/job "
            "| worker peak RSS MiB | process tree peak RSS MiB |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        results = {}
        for workers in args.workers:
            sampler = PeakSampler()
            sampler.start()
            run = run_batch(jobs, [str(DEFAULT_CASES)], workers=workers)
            tree_peak = sampler.stop()
            results[workers] = run.rows
            worker_peak = max(run.worker_peak_rss_kb.values()) / 1024
            print(
                f"| {workers} | {len(jobs)} | {len(run.rows)} | {run.seconds:.1f} "
                f"| {len(jobs) / run.seconds:.2f} | {total / 1e6 / run.seconds:.1f} "
                f"| {run.cpu_seconds / len(jobs):.2f} "
                f"| {worker_peak:.0f} | {tree_peak / 2**20:.0f} |"
            )
        runs = list(results.values())
        same = all(r == runs[0] for r in runs)
        print(f"rows identical across worker counts: {same}")
        if args.verify:
            kb = load_kb([str(DEFAULT_CASES)])
            local = [diagnose_job(j, kb)["row"] for j in jobs]
            local.sort(key=lambda r: str(r["job"]))
            print(
                f"rows equal to kb diagnose on each job: {local == runs[0]} "
                f"({sum(a == b for a, b in zip(local, runs[0], strict=True))}/{len(jobs)})"
            )
            same = same and local == runs[0]
        verdicts: dict[str, int] = {}
        for row in runs[0]:
            key = f"{row['verdict']} {row['case_id'] or ''}".strip()
            verdicts[key] = verdicts.get(key, 0) + 1
        print("verdicts: " + ", ".join(f"{n} {k}" for k, n in sorted(verdicts.items())))
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
