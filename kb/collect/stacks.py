"""Stacks of every rank process, taken with the real `py-spy dump` while the job hangs.

Each dump goes to `py-spy/rank<N>.txt` (the rank in the name, as the evidence reader expects).
py-spy is an optional tool: when it is missing, `kb run` says so and how to install it."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from kb.collect.bundle import private_dir, write_new
from kb.collect.commands import run_command
from kb.collect.processes import JobProcess

PY_SPY_TIMEOUT = 20.0
MISSING = "py-spy is not installed, so no stacks can be taken: pip install py-spy"


def find_py_spy() -> str | None:
    """py-spy on PATH, else beside the running interpreter (a venv's bin/)."""
    return shutil.which("py-spy") or shutil.which("py-spy", path=os.path.dirname(sys.executable))


@dataclass(kw_only=True)
class StackDump:
    process: JobProcess
    file: str  # relative to the bundle
    ok: bool
    note: str = ""


def dump_stacks(processes: list[JobProcess], bundle: Path, tag: str = "") -> list[StackDump]:
    """One `py-spy dump --pid` per process; failures are kept with py-spy's own message."""
    py_spy = find_py_spy()
    private_dir(bundle / "py-spy")
    dumps = []
    for p in processes:
        name = f"rank{p.rank}" if p.rank is not None else f"pid{p.pid}"
        rel = f"py-spy/{name}{tag}.txt"
        if py_spy is None:
            dumps.append(StackDump(process=p, file=rel, ok=False, note=MISSING))
            continue
        out = run_command([py_spy, "dump", "--pid", str(p.pid)], timeout=PY_SPY_TIMEOUT,
                          display=f"py-spy dump --pid {p.pid}")  # fmt: skip
        text = out.data.decode("utf-8", "replace")
        if out.status == 0 and text.strip():
            write_new(bundle / rel, text)
            dumps.append(StackDump(process=p, file=rel, ok=True))
        else:
            first = next((ln for ln in text.splitlines() if ln.strip()), out.note or "no output")
            write_new(bundle / (rel + ".error"), text or out.note)
            dumps.append(StackDump(process=p, file=rel, ok=False, note=first[:300]))
    return dumps
