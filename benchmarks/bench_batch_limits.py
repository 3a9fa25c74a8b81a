"""What one hostile job costs (issue 32): `kb evidence` on an archive of 100,000 one-line
members (.tar.gz and .zip), and `kb run` on a job that prints 1 GiB without a newline.

Each command runs as a child process; its peak RSS and CPU time come from `wait4`, so the
figures are the child's own whatever else the machine does (wall time is shown, not judged).

    python benchmarks/bench_batch_limits.py [--members 100000] [--line-mib 1024]
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

KB = [os.path.join(os.path.dirname(sys.executable), "kb")]


def measure(argv: list[str], cwd: str | None = None) -> dict[str, float]:
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    return {
        "exit": proc.returncode,
        "peak_rss_mib": usage.ru_maxrss / 1024,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "wall_s": time.perf_counter() - started,
        "stderr": err.strip().splitlines()[-1:] or [""],  # type: ignore[dict-item]
    }


def many_members_tar(path: Path, members: int) -> None:
    with tarfile.open(path, "w:gz") as tar:
        for i in range(members):
            data = f"[rank{i % 64}] step {i} ok\n".encode()
            info = tarfile.TarInfo(f"logs/m{i:06d}.log")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def many_members_zip(path: Path, members: int) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for i in range(members):
            zf.writestr(f"logs/m{i:06d}.log", f"[rank{i % 64}] step {i} ok\n")


def long_line_job(path: Path, mib: int) -> None:
    path.write_text(
        "import sys\n"
        "chunk = ('step 1 loss 0.5 ' * 65536).encode()\n"  # 1 MiB of words
        f"for _ in range({mib}):\n"
        "    sys.stdout.buffer.write(chunk)\n"
        "sys.stdout.buffer.flush()\n"
        "sys.exit(1)\n"  # ends badly: kb run diagnoses the bundle too
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--members", type=int, default=100_000)
    ap.add_argument("--line-mib", type=int, default=1024)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="kb-bench-limits-") as tmp:
        root = Path(tmp)
        rows = []
        for kind, make in (("tar.gz", many_members_tar), ("zip", many_members_zip)):
            archive = root / f"members.{kind}"
            make(archive, args.members)
            size = archive.stat().st_size / 1e6
            fig = measure([*KB, "evidence", str(archive), "--format", "json"])
            rows.append((f"kb evidence, {args.members:,} members ({kind}, {size:.1f} MB)", fig))
        job = root / "long_line.py"
        long_line_job(job, args.line_mib)
        fig = measure(
            [*KB, "run", "--bundle", str(root / "bundle"), "--", sys.executable, str(job)],
            cwd=tmp,
        )
        rows.append((f"kb run, one {args.line_mib} MiB line without newline", fig))
    print("| what | exit | peak RSS MiB | CPU s | wall s |")
    print("|---|---|---|---|---|")
    for what, f in rows:
        print(
            f"| {what} | {f['exit']} | {f['peak_rss_mib']:.0f} | {f['cpu_s']:.1f} "
            f"| {f['wall_s']:.1f} |"
        )
        if f["exit"] not in (0, 1):
            print(f"  stderr: {f['stderr']}", file=sys.stderr)


if __name__ == "__main__":
    main()
