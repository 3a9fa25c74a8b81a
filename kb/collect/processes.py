"""The processes of a job: every descendant of the launcher, read from /proc, and the rank
each one runs as (RANK in its environment, as torchrun, accelerate and deepspeed set it;
RANK_ID for msrun, OMPI_COMM_WORLD_RANK for mpirun)."""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class JobProcess:
    pid: int
    rank: int | None
    command: str


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    # "pid (comm) state ppid ...": comm may hold spaces and parentheses
    fields = stat[stat.rfind(b")") + 2 :].split()
    return int(fields[1]) if len(fields) > 1 else None


def descendants(root: int) -> list[int]:
    """Every live process below `root`, parents before children."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            parent = _parent(int(entry))
            if parent is not None:
                children.setdefault(parent, []).append(int(entry))
    out: list[int] = []
    todo = [root]
    while todo:
        pid = todo.pop(0)
        for child in sorted(children.get(pid, [])):
            out.append(child)
            todo.append(child)
    return out


# torchrun, accelerate, deepspeed and mpirun set RANK; MindSpore's msrun sets RANK_ID
RANK_VARIABLES = (b"RANK", b"RANK_ID", b"OMPI_COMM_WORLD_RANK")


def _environ_rank(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            data = fh.read(1 << 20)
    except OSError:
        return None
    found: dict[bytes, bytes] = {}
    for item in data.split(b"\0"):
        name, _, value = item.partition(b"=")
        if name in RANK_VARIABLES:
            found[name] = value
    for name in RANK_VARIABLES:  # the first a launcher sets wins
        value = found.get(name, b"")
        if value.isdigit() and len(value) < 9:
            return int(value)
    return None


def _command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read(4096).replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        return ""


def rank_processes(root: int) -> list[JobProcess]:
    """The job's rank processes (those with RANK set), else every Python descendant."""
    found = [
        JobProcess(pid=p, rank=_environ_rank(p), command=_command(p)) for p in descendants(root)
    ]
    ranked = [p for p in found if p.rank is not None]
    # a rank's own helpers (DataLoader workers, compile workers) inherit RANK: keep the
    # topmost process of each rank, the one that runs the training loop
    first: dict[int, JobProcess] = {}
    for p in ranked:
        assert p.rank is not None
        first.setdefault(p.rank, p)
    if first:
        return [first[r] for r in sorted(first)]
    return [p for p in found if "python" in p.command.split(" ", 1)[0]]
