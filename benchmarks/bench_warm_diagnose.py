"""Where the CPU of a warm `kb diagnose` on the bundled example goes, phase by phase.

    python benchmarks/bench_warm_diagnose.py --runs 5

Each run is a fresh process that does what `kb diagnose --evidence EXAMPLE` does, timing each
phase with the process's CPU clock: the imports, loading the knowledge base (the snapshot),
building the scan's pattern set (its checked record and engine database, from the cache),
reading the evidence, running the cases and rendering the text (the knowledge base as
`kb diagnose` loads it: the snapshot's plain records, kb.cache.records; and as it runs from the
shell, kb.cli.one_shot: no cyclic collector, no teardown). A first run fills the
cache (its own, under a temporary folder unless --cache is given) and is not counted. The
table gives the median and best CPU seconds of each phase, the whole process's CPU from
os.wait4 (interpreter start-up included), and which heavy modules a warm run loads (the
issue asks for neither pydantic nor Lark). The last table is `python -X importtime` of one
warm run: the modules with the largest cumulative import time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_startup import importtime_top  # run as a script: benchmarks/ is on sys.path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "hang-at-eval-8gpu"
# the language (parser, pydantic models) is needed only when a case or catalogue file changed
HEAVY = (
    "pydantic",
    "dsl.model",
    "dsl.compiler",
    "lark",
    "dsl.parser",
    "ruamel.yaml",
    "hyperscan",
    "re2",
)

DRIVER = """
import time, sys, io, json
T = time.process_time
marks = [("start", T())]
from kb.cli import one_shot  # as `kb diagnose` from the shell: no collector, no teardown
one_shot.begin()
from kb.cache import dataclass_code  # as kb.cli.main does before running a command
dataclass_code.install()
from dsl.catalogue.load import held_fingerprint
from kb.match.diagnose import diagnose_bundle, read_bundle
from kb.report.text import write_text
from kb.evidence.summary import render_summary
from kb.cli.common import load_kb
from kb.evidence.reader import LogPattern
from kb.evidence.filereader import check_patterns
import argparse
marks.append(("imports", T()))
with held_fingerprint():
    kb = load_kb(argparse.Namespace(no_bundled=False, cases=[], no_cache=False), records=True)
    marks.append(("load knowledge", T()))
    # the set read_bundle builds first (kept per process: read_bundle finds it built)
    check_patterns(tuple(
        LogPattern(p.key, p.regex, p.ignore_case, tuple(p.sources), tuple(p.files), p.enough)
        for p in kb.scan_patterns()
    ))
    marks.append(("scan patterns", T()))
    bundle = read_bundle(kb, sys.argv[1], workers=None)
    marks.append(("read evidence", T()))
    diagnosis = diagnose_bundle(kb, bundle, only=None)
    marks.append(("run cases", T()))
    out, sys.stdout = sys.stdout, io.StringIO()
    write_text(diagnosis, kb, summary=render_summary(bundle), facts=bundle.facts,
               verbose=False, pager=False)
    sys.stdout = out
    marks.append(("render", T()))
phases = {b: tb - ta for (_, ta), (b, tb) in zip(marks, marks[1:])}
heavy = [m for m in sys.argv[2].split(",") if m in sys.modules]
sys.stderr.write("\\nPHASES " + json.dumps({"phases": phases, "heavy": heavy}) + "\\n")
one_shot.exit_now(0)
"""


def run_once(cache: str) -> tuple[dict[str, float], list[str], float]:
    """(CPU seconds per phase, heavy modules loaded, CPU of the whole process)."""
    env = dict(os.environ, KB_CACHE_DIR=cache)
    env.pop("KB_CASES", None)
    proc = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(EXAMPLE), ",".join(HEAVY)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
        text=True,
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    line = [x for x in err.splitlines() if x.startswith("PHASES ")]
    if not line or os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the driver failed:\n{err[-3000:]}")
    found = json.loads(line[-1][len("PHASES ") :])
    return found["phases"], found["heavy"], usage.ru_utime + usage.ru_stime


def import_top(cache: str, n: int) -> list[tuple[int, str]]:
    """(cumulative microseconds, module) of the `n` slowest imports of a warm diagnose."""
    env = dict(os.environ, KB_CACHE_DIR=cache)
    env.pop("KB_CASES", None)
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "kb.cli.main", "diagnose", "--no-pager",
         "--evidence", str(EXAMPLE)],
        capture_output=True, text=True, cwd=ROOT, env=env,
    )  # fmt: skip
    return importtime_top(proc.stderr, n)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--top", type=int, default=15, help="importtime rows shown")
    ap.add_argument("--cache", help="KB_CACHE_DIR to use (default: a fresh temporary one)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kb-bench-warm-") as tmp:
        cache = args.cache or tmp
        run_once(cache)  # fills the cache; not counted
        runs = [run_once(cache) for _ in range(max(1, args.runs))]
        # without .pyc files every run compiles every module it imports (imports ~3x)
        pyc = "off (PYTHONDONTWRITEBYTECODE)" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "on"
        print(f"# warm kb diagnose {EXAMPLE.name}: {len(runs)} runs; "
              f"load average {os.getloadavg()[0]:.1f}; bytecode cache {pyc}")  # fmt: skip
        print(f"{'phase':<22} {'median CPU s':>12} {'best CPU s':>11}")
        for name in runs[0][0]:
            got = sorted(r[0][name] for r in runs)
            print(f"{name:<22} {got[len(got) // 2]:>12.3f} {got[0]:>11.3f}")
        whole = sorted(r[2] for r in runs)
        print(f"{'whole process':<22} {whole[len(whole) // 2]:>12.3f} {whole[0]:>11.3f}")
        print(f"heavy modules loaded: {', '.join(runs[-1][1]) or 'none'}")
        print(f"\n# python -X importtime, warm kb diagnose: top {args.top} (cumulative)")
        for micros, name in import_top(cache, args.top):
            print(f"{micros / 1000:>8.1f} ms  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
