"""Throughput and peak memory of the log scan, against ripgrep with the same patterns.

Every measurement runs in a fresh child process, so its peak RSS (own + its workers') is its own.
Files are read once beforehand, so all rows are warm page cache. Data goes to --out (not the repo).
It ends with `kb read_evidence` and `kb diagnose` (second run) as a fraction of the engine's
scan alone with the same patterns, measured in the same run.

    python benchmarks/bench_scan.py --size-mb 1024 --ranks 64 --patterns 50,500 --workers 2
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import generate_evidence as gen  # noqa: E402


def _vm_hwm_kb() -> int:
    """Peak resident set of this process (VmHWM), in KiB."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _peak_mb(worker_kb: int = 0) -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(_vm_hwm_kb(), children, worker_kb) / 1024


class _Count:
    """on_line that only counts: the raw engine cost, without any consumer work."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self, line_no: int, line: bytes, ids: list[int]) -> None:
        self.n += 1


_PATTERNS: Any = None


def _scan_file(path: str) -> tuple[int, int, int, int]:
    from kb.scan.engine import scan_stream

    with open(path, "rb") as f:
        st = scan_stream(f, _PATTERNS, _Count())
    return st.bytes, st.lines, st.matched_lines, _vm_hwm_kb()


def _files(folder: Path) -> list[str]:
    return sorted(str(p) for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))


def one_engine(folder: Path, npat: int, engine: str, workers: int) -> dict[str, Any]:
    """Child-process body: compile, scan every file, report figures as JSON."""
    global _PATTERNS
    from parallel import map_files

    from kb.scan.engine import PatternSet

    pats = gen.make_patterns(npat)
    t0 = time.perf_counter()
    _PATTERNS = PatternSet(pats, engine=engine)
    compile_s = time.perf_counter() - t0
    files = _files(folder)
    t0 = time.perf_counter()
    res = map_files(_scan_file, files, workers)
    secs = time.perf_counter() - t0
    return {
        "bytes": sum(r[0] for r in res),
        "lines": sum(r[1] for r in res),
        "matched": sum(r[2] for r in res),
        "seconds": secs,
        "compile_s": compile_s,
        "peak_mb": _peak_mb(max(r[3] for r in res)),
    }


def _scan_only(path: str) -> tuple[int, int, int, int]:
    """The engine's scan of a file and nothing else: no line numbers, no per-line Python.
    Blocks are cut every MiB, not at newlines, so a few matches may shift; the figure is a
    ceiling for anything built on this engine, not a result."""
    backend = _PATTERNS.backend
    buf = bytearray(1 << 20)
    mv = memoryview(buf)
    total = codes = 0
    with open(path, "rb") as f:
        while n := f.readinto(buf):
            total += n
            codes += len(backend.scan_block(mv[:n]))
    return total, 0, codes, _vm_hwm_kb()


def one_scan_only(folder: Path, npat: int, workers: int, with_sources: bool) -> dict[str, Any]:
    """Child-process body: hyperscan over every file with the case patterns alone, or with the
    reader's own source patterns added (the database `read_evidence` scans with)."""
    global _PATTERNS
    from kb.evidence.filereader import LogPattern, compile_patterns
    from kb.scan.engine import PatternSet

    pats = gen.make_patterns(npat)
    t0 = time.perf_counter()
    if with_sources:
        logs = tuple(LogPattern(f"q{i}", rx, ic) for i, rx, ic in pats)
        _PATTERNS = compile_patterns(logs, progress=False).log_set
    else:
        _PATTERNS = PatternSet(pats, engine="hyperscan")
    return _bare_scan(folder, workers, t0, lines=None)


def _bare_scan(folder: Path, workers: int, t0: float, lines: int | None) -> dict[str, Any]:
    """Compiles `_PATTERNS` (if not yet; the compile counted from `t0`), then scans every
    file of `folder` with it in `workers` processes: the row of a bare scan."""
    from parallel import map_files

    _PATTERNS.backend  # noqa: B018 (compiled here, not in the timed part)
    compile_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    res = map_files(_scan_only, _files(folder), workers)
    return {
        "bytes": sum(r[0] for r in res),
        "lines": lines,
        "matched": None,
        "seconds": time.perf_counter() - t0,
        "compile_s": compile_s,
        "peak_mb": _peak_mb(max(r[3] for r in res)),
    }


def one_scan_kb(folder: Path, workers: int) -> dict[str, Any]:
    """Child-process body: hyperscan over every file with the patterns `kb diagnose` scans
    with (every case's and the catalogue's, with the reader's own), the ceiling it is a
    fraction of. One database for all files, where the reader takes a subset per kind on
    files of 8 MB or more: a ceiling, never a flattering one."""
    import argparse as _argparse

    global _PATTERNS
    from kb.cli.common import load_kb
    from kb.evidence.filereader import LogPattern, compile_patterns

    kb = load_kb(_argparse.Namespace(cases=[], no_bundled=False, no_cache=False))
    pats = tuple(
        LogPattern(p.key, p.regex, p.ignore_case, tuple(p.sources), tuple(p.files), p.enough)
        for p in kb.scan_patterns()
    )
    t0 = time.perf_counter()
    _PATTERNS = compile_patterns(pats, progress=False).log_set
    return _bare_scan(folder, workers, t0, lines=len(_PATTERNS))


def one_rg(folder: Path, npat: int, workers: int, tmp: Path) -> dict[str, Any]:
    pfile = tmp / f"patterns-{npat}.txt"
    gen.write_rg_patterns(gen.make_patterns(npat), pfile)
    cmd = ["rg", "-c", "-j", str(workers), "-f", str(pfile), str(folder)]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, check=False)
    secs = time.perf_counter() - t0
    if out.returncode > 1:
        raise RuntimeError(out.stderr.decode())
    matched = sum(int(line.rsplit(b":", 1)[1]) for line in out.stdout.splitlines())
    return _whole_run(folder, secs, _children_peak_mb(), matched)


def _whole_run(
    folder: Path, secs: float, peak_mb: float, matched: int | None = None
) -> dict[str, Any]:
    """A row's figures for a run over the whole folder (no per-line or compile counts)."""
    size = sum(os.path.getsize(p) for p in _files(folder))
    return {"bytes": size, "lines": None, "matched": matched, "seconds": secs,
            "compile_s": None, "peak_mb": peak_mb}  # fmt: skip


def _children_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def _kb_command() -> list[str]:
    kb = Path(sys.executable).parent / "kb"
    return [str(kb)] if kb.exists() else [sys.executable, "-m", "kb.cli.main"]


def one_pipeline(folder: Path, npat: int) -> dict[str, Any]:
    from dsl.compiler import COUNT_ENOUGH  # what the compiler gives every case pattern
    from kb.evidence.reader import LogPattern, read_evidence

    pats = [
        LogPattern(f"q{i}", rx, ic, enough=COUNT_ENOUGH) for i, rx, ic in gen.make_patterns(npat)
    ]
    t0 = time.perf_counter()
    read_evidence(folder, pats)
    return _whole_run(folder, time.perf_counter() - t0, _peak_mb())


def one_diagnose(folder: Path) -> dict[str, Any]:
    """`kb diagnose` end to end with the bundled cases (their real patterns), as a user runs it."""
    t0 = time.perf_counter()
    out = subprocess.run(
        [*_kb_command(), "diagnose", "--evidence", str(folder)], capture_output=True
    )
    secs = time.perf_counter() - t0
    if out.returncode > 1:
        raise RuntimeError(out.stderr.decode()[-300:])
    return _whole_run(folder, secs, _children_peak_mb())


def _child(
    kind: str, folder: Path, npat: int, engine: str, workers: int, tmp: Path
) -> dict[str, Any] | str:
    cmd = [
        sys.executable,
        __file__,
        "--_child",
        kind,
        "--_folder",
        str(folder),
        "--_npat",
        str(npat),
        "--_engine",
        engine,
        "--workers",
        str(workers),
        "--out",
        str(tmp),
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode:
        return (out.stderr.strip().splitlines() or ["failed"])[-1]
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def ensure_data(out: Path, size_mb: float, ranks: int) -> Path:
    folder = out / f"evidence-{size_mb:g}mb-{ranks}r"
    marker = folder / ".complete"
    if not marker.exists():
        if folder.exists():
            shutil.rmtree(folder)
        print(f"# generating {size_mb:g} MB across {ranks} files in {folder} ...", file=sys.stderr)
        gen.write_folder(folder, size_mb, ranks)
        marker.write_text("ok\n")
    for p in _files(folder):  # warm the page cache so every row reads from memory
        with open(p, "rb") as f:
            while f.read(1 << 24):
                pass
    return folder


def startup(out: Path) -> tuple[float, float, int]:
    """Best and median wall time of `kb evidence` on a 1 MB folder over 10 runs, bytecode
    compiled beforehand (as pip and scripts/bootstrap.sh leave it; where
    PYTHONDONTWRITEBYTECODE is set, every run would otherwise recompile from source)."""
    small = ensure_data(out, 1, 4)
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(HERE.parent / "kb"), str(HERE.parent / "dsl")],
        capture_output=True, check=False,
    )  # fmt: skip
    cmd = _kb_command()
    walls = []
    code = 0
    for _ in range(10):
        t0 = time.perf_counter()
        proc = subprocess.run([*cmd, "evidence", str(small)], capture_output=True, check=False)
        walls.append(time.perf_counter() - t0)
        code = code or proc.returncode
    walls.sort()
    return walls[0], walls[len(walls) // 2], code


def _rate(mb_per_s: float) -> str:
    """MB/s with two significant figures below 10 (a small folder's first run is slow)."""
    return f"{mb_per_s:.2g}" if mb_per_s < 10 else f"{mb_per_s:.0f}"


def _row(name: str, npat: int, files: int, r: dict[str, Any] | str) -> str:
    if isinstance(r, str):
        return f"| {name} | {npat} | {files} | - | - | - | - | - | {r[:60]} |"
    mb = r["bytes"] / 1e6
    comp = f"{r['compile_s']:.2f}" if r.get("compile_s") is not None else "-"
    matched = (
        f"{r['matched'] / r['lines']:.1%}"
        if r.get("lines")
        else (str(r["matched"]) if r["matched"] is not None else "-")
    )
    return (
        f"| {name} | {npat} | {files} | {mb:.0f} | {r['seconds']:.2f} | "
        f"{_rate(mb / r['seconds'])} | {r['peak_mb']:.0f} | {comp} | {matched} |"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--size-mb", type=float, default=1024)
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--patterns", default="50,500")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--engines", default=None, help="comma list; default: all available")
    ap.add_argument(
        "--pipeline-size-mb",
        type=float,
        default=None,
        help="size of the folder for the read_evidence rows (default: --size-mb)",
    )
    ap.add_argument("--out", type=Path, default=Path("/tmp/kb-bench"))
    ap.add_argument("--_child", help=argparse.SUPPRESS)
    ap.add_argument("--_folder", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--_npat", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--_engine", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args._child:
        if args._child == "engine":
            res = one_engine(args._folder, args._npat, args._engine, args.workers)
        elif args._child in ("scan-case", "scan-all"):
            res = one_scan_only(args._folder, args._npat, args.workers, args._child == "scan-all")
        elif args._child == "rg":
            res = one_rg(args._folder, args._npat, args.workers, args.out)
        elif args._child == "scan-kb":
            res = one_scan_kb(args._folder, args.workers)
        elif args._child == "diagnose":
            res = one_diagnose(args._folder)
        else:
            res = one_pipeline(args._folder, args._npat)
        print(json.dumps(res))
        return 0

    from kb.scan.engine import ENGINES

    engines = args.engines.split(",") if args.engines else list(ENGINES)
    counts = [int(x) for x in args.patterns.split(",")]
    args.out.mkdir(parents=True, exist_ok=True)
    folder = ensure_data(args.out, args.size_mb, args.ranks)
    nfiles = len(_files(folder))
    print(
        f"# {nfiles} files, {sum(os.path.getsize(p) for p in _files(folder)) / 1e6:.0f} MB, "
        f"{os.cpu_count()} CPUs, warm page cache; MB = 10^6 bytes"
    )
    print(
        "| engine | patterns | files | MB | seconds | MB/s | peak RSS MB | compile s | matched lines |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    pipeline = ensure_data(args.out, args.pipeline_size_mb or args.size_mb, args.ranks)
    ratios: list[tuple[str, float]] = []  # wall time of the ceiling / of the row, same run
    for npat in counts:
        for engine in engines:
            for workers in (args.workers, 1):
                r = _child("engine", folder, npat, engine, workers, args.out)
                print(_row(f"{engine} x{workers} proc", npat, nfiles, r), flush=True)
        ceiling: dict[str, Any] | None = None
        if "hyperscan" in engines:  # ceilings: the scan alone, before any line is handled
            for kind, what in (("scan-case", "case"), ("scan-all", "case + reader")):
                r = _child(kind, folder, npat, "", args.workers, args.out)
                name = f"hyperscan scan only, {what} patterns x{args.workers}"
                print(_row(name, npat, nfiles, r), flush=True)
                if kind == "scan-all" and isinstance(r, dict) and folder == pipeline:
                    ceiling = r
        if shutil.which("rg"):
            r = _child("rg", folder, npat, "", args.workers, args.out)
            print(_row(f"ripgrep -j{args.workers}", npat, nfiles, r), flush=True)
        r = _child("pipeline", pipeline, npat, "", args.workers, args.out)
        print(_row("kb read_evidence", npat, len(_files(pipeline)), r), flush=True)
        if ceiling is not None and not isinstance(r, str):
            ratios.append((f"kb read_evidence / scan only, {npat} case + reader patterns",
                           ceiling["seconds"] / r["seconds"]))  # fmt: skip
    ncase = len(list((HERE.parent / "cases").glob("*/case.kb")))
    # a fresh cache: the first run compiles cases and scan databases, the second reuses them
    os.environ["KB_CACHE_DIR"] = str(args.out / f"cache-{os.getpid()}")
    diagnosed: dict[str, Any] | str = "not run"
    for run in ("first", "second"):
        diagnosed = _child("diagnose", pipeline, 0, "", args.workers, args.out)
        print(_row(f"kb diagnose, {ncase} cases ({run} run)", 0, len(_files(pipeline)), diagnosed))
    kb_scan = _child("scan-kb", pipeline, 0, "", args.workers, args.out)
    npat_kb = kb_scan["lines"] if isinstance(kb_scan, dict) else 0
    if isinstance(kb_scan, dict):
        kb_scan["lines"] = None  # it carried the pattern count
    name = f"hyperscan scan only, kb diagnose's patterns x{args.workers}"
    print(_row(name, npat_kb, len(_files(pipeline)), kb_scan), flush=True)
    if isinstance(kb_scan, dict) and isinstance(diagnosed, dict):
        ratios.append(("kb diagnose (second run) / scan only, kb diagnose's patterns",
                       kb_scan["seconds"] / diagnosed["seconds"]))  # fmt: skip
    for label, ratio in ratios:
        print(f"# {label}: {ratio:.0%} of the engine's pace")
    print(f"# load average at end: {os.getloadavg()[0]:.1f} (other jobs on this machine skew rows)")
    best, median, code = startup(args.out)
    print(
        f"# `kb evidence <1 MB, 4 ranks>` wall time over 10 runs: best {best:.3f} s, "
        f"median {median:.3f} s, exit {code}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
