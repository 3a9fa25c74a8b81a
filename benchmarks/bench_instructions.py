"""Instructions spent reading one evidence file, counted with valgrind (callgrind).

Why: on a shared 2-core machine, wall and CPU times of the same run vary by 30%, which hides
changes of 5-10%. Instruction counts are stable to well under 1%, so an A/B of the reader
is measured here, and the MB/s figures come from `bench_scan.py`.

Each file is read in a fresh process under callgrind; a run that only imports and compiles
the patterns is subtracted, so the figure is the file's own cost. Compare two checkouts with
`--root`:

    python benchmarks/bench_instructions.py --patterns 500 FILE [FILE ...]
    python benchmarks/bench_instructions.py --root ../old-checkout --patterns 500 FILE
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# what one measured process runs: the reader on one file (or on none, for the baseline)
_READ_ONE = """
import sys, gc
root, npat, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sys.path[:0] = [root, root + "/benchmarks"]
import generate_evidence as gen
from dsl.compiler import COUNT_ENOUGH
from kb.evidence.filereader import LogPattern, check_patterns, read_file
from kb.evidence.inputs import walk
from kb.evidence.limits import Limits
gc.disable()
pats = tuple(LogPattern(f"q{i}", rx, ic, enough=COUNT_ENOUGH) for i, rx, ic in gen.make_patterns(npat))
check_patterns(pats)
if path != "-":
    from pathlib import Path
    for task in walk(Path(path), []):
        read_file(task, pats, Limits(), None)
"""


def instructions(root: Path, npat: int, path: str) -> int:
    """Instructions (callgrind's Ir) of one process reading `path` ("-": read nothing)."""
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         sys.executable, "-c", _READ_ONE, str(root), str(npat), path],
        capture_output=True, text=True, check=False, cwd=root,
    )  # fmt: skip
    found = re.search(r"Collected : (\d+)", out.stderr)
    if out.returncode or not found:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr else "valgrind failed")
    return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--root", type=Path, default=HERE.parent, help="checkout to measure")
    ap.add_argument("--patterns", type=int, default=500)
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing to count", file=sys.stderr)
        return 2
    # warm the scan-database cache, so no run below pays a compile
    instructions(args.root, args.patterns, str(args.files[0]))
    base = instructions(args.root, args.patterns, "-")
    print(f"# {args.root}: {args.patterns} case patterns; start-up and compile {base / 1e6:.0f} M")
    print("| file | MB | M instructions | instructions/byte |")
    print("|---|---|---|---|")
    for f in args.files:
        size = os.path.getsize(f) if f.is_file() else sum(p.stat().st_size for p in f.iterdir())
        own = instructions(args.root, args.patterns, str(f)) - base
        print(f"| {f.name} | {size / 1e6:.1f} | {own / 1e6:.0f} | {own / size:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
