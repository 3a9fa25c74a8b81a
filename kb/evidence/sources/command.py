"""The command the user ran: a launcher line (`torchrun`, `python -m torch.distributed.run`,
`deepspeed`, `accelerate launch`, `srun`, `mpirun`) and the `export VAR=value` lines around it.

Its settings are an environment capture (an env query then sees `NCCL_P2P_DISABLE=1` given on
the command line) and the launcher's world size is a fact, not words. The same reading serves
command lines pasted into the user's notes (`command_facts`).

>>> world_size("torchrun --nnodes 2 --nproc_per_node=8 train.py")
16
>>> world_size("deepspeed --num_gpus 4 train.py"), world_size("mpirun -np 32 python x.py")
(4, 32)
>>> world_size("srun --nodes=2 --ntasks-per-node=4 python x.py"), world_size("torchrun x.py")
(8, None)
>>> settings("NCCL_P2P_DISABLE=1 CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc_per_node 2 t.py")
{'NCCL_P2P_DISABLE': '1', 'CUDA_VISIBLE_DEVICES': '0,1'}
>>> settings("mpirun -np 16 -x NCCL_IB_DISABLE=1 -x PATH python x.py")
{'NCCL_IB_DISABLE': '1'}
"""

from __future__ import annotations

import re
import shlex

from kb.evidence.context import FileContext
from kb.evidence.facts import EnvCapture
from kb.evidence.lazy_pattern import lazy
from kb.evidence.sources.base import WholeFileSource

_ASSIGN = r"[A-Za-z_][A-Za-z0-9_]*=(?:\"[^\"]*\"|'[^']*'|\S*)"
_LAUNCHERS = (
    r"torchrun|python[\d.]*\s+-m\s+torch\.distributed\.(?:run|launch)|deepspeed"
    r"|accelerate\s+launch|srun|mpirun|mpiexec"
)
# an optional prompt, inline settings (`env` too), then the launcher
LAUNCH = lazy(
    rf"^\s*(?:\$\s+)?(?:env\s+)?((?:{_ASSIGN}\s+)*)(?:env\s+)?((?:{_ASSIGN}\s+)*)(?:{_LAUNCHERS})(?:\s|$)"
)
EXPORT = lazy(rf"^\s*(?:\$\s+)?export\s+({_ASSIGN}(?:\s+{_ASSIGN})*)\s*(?:;|$)")
# what else a launch script holds: comments, a shebang, settings and the usual shell steps
_SHELL = lazy(
    rf"^\s*(?:#|{_ASSIGN}\s*$|(?:cd|source|\.|conda|module|set|echo|ulimit|mkdir|unset|ml)\b)"
)


_MPI_EXPORT = lazy(rf"(?:^|\s)-x\s+({_ASSIGN})")


def _assignments(text: str) -> dict[str, str]:
    try:
        words = shlex.split(text)
    except ValueError:  # an unclosed quote: the words as written
        words = text.split()
    return dict(w.split("=", 1) for w in words if "=" in w and not w.startswith("="))


def settings(line: str) -> dict[str, str]:
    """The variables a command line sets: `export A=1 B=2` or `A=1 torchrun …`."""
    m = EXPORT.match(line)
    if m:
        return _assignments(m.group(1))
    m = LAUNCH.match(line)
    if not m:
        return {}
    found = _assignments(m.group(1) + " " + m.group(2))
    found.update(_assignments(" ".join(_MPI_EXPORT.findall(line))))  # mpirun -x NAME=value
    return found


_FLAG = r"(?:^|\s){}(?:=|\s+)(\d+)(?:\s|$)"


def _flag(line: str, *names: str) -> int | None:
    for name in names:
        m = re.search(_FLAG.format(name), line)
        if m:
            return int(m.group(1))
    return None


def world_size(line: str) -> int | None:
    """The number of processes a launcher line starts, when its flags say so."""
    m = LAUNCH.match(line)
    if not m:
        return None
    launcher = line[m.end(2) :].split(None, 1)[0] if line[m.end(2) :].strip() else ""
    if launcher in ("mpirun", "mpiexec"):
        return _flag(line, "-np", "-n", "--np")
    if launcher == "srun":
        total = _flag(line, "--ntasks", "-n")
        per_node, nodes = _flag(line, "--ntasks-per-node"), _flag(line, "--nodes", "-N")
        return total or (per_node * (nodes or 1) if per_node else None)
    if launcher == "deepspeed":
        gpus = _flag(line, "--num_gpus", "--num-gpus")
        return gpus * (_flag(line, "--num_nodes", "--num-nodes") or 1) if gpus else None
    if launcher == "accelerate":
        return _flag(line, "--num_processes", "--num-processes")
    per_node = _flag(line, "--nproc_per_node", "--nproc-per-node")
    return per_node * (_flag(line, "--nnodes") or 1) if per_node else None


def logical_lines(text: str) -> list[tuple[int, str]]:
    """(first line number, text) with `\\` continuations joined."""
    out: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if pending is not None:
            line = pending[1] + " " + line.lstrip()
            no = pending[0]
        if line.endswith("\\"):
            pending = (no, line[:-1].rstrip())
            continue
        pending = None
        out.append((no, line))
    if pending is not None:
        out.append(pending)
    return out


def command_facts(ctx: FileContext, lines: list[tuple[int, str]]) -> bool:
    """Settings and world size of the command lines among `lines`; True if any was one."""
    cap = EnvCapture(file=ctx.display)
    found = False
    for no, line in lines:
        if not (EXPORT.match(line) or LAUNCH.match(line)):
            continue
        found = True
        for name, value in settings(line).items():
            if name not in cap.variables:
                cap.variables[name], cap.lines[name] = value, no
        size = world_size(line)
        if size:
            ctx.world_sizes.add(size)
    if cap.variables:
        ctx.facts.env_captures.append(cap)
    return found


class CommandSource(WholeFileSource):
    name = "command"
    description = "the command the user ran (launcher line, export settings)"

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        lines = [(no, ln) for no, ln in logical_lines(head) if ln.strip()][:60]
        launches = sum(1 for _, ln in lines if LAUNCH.match(ln))
        if not launches:
            return 0.0  # settings alone are an environment dump (env-dump)
        exports = sum(1 for _, ln in lines if EXPORT.match(ln))
        shell = sum(1 for _, ln in lines if _SHELL.match(ln))
        ok = launches + exports + shell
        return 0.95 if ok >= 0.8 * len(lines) else 0.0

    def parse(self, text: str) -> None:
        command_facts(self.ctx, logical_lines(text))
