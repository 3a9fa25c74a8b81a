"""What `kb collect` captures: one `Capture` per file of the bundle, each with the command
that makes it. File names are the ones the evidence reader and the cases' `collect` blocks
already use (`pip-freeze.txt`, `nvidia-smi-topo.txt`, `df-h.txt`, `env.txt`, ...).

A capture is either a command (run under a timeout, output bounded), a file read from a fixed
path, or the job's environment variables. Missing tools and files are noted, not errors:
a machine without GPUs simply has no `nvidia-smi`.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from kb.collect.commands import Output, run_command

# the variables a case may ask about; everything else in the environment stays out
ENV_PREFIXES = (
    "NCCL_",
    "TORCH_",
    "TORCHELASTIC_",
    "PYTORCH_",
    "CUDA_",
    "HCCL_",
    "ASCEND_",
    "GLOO_",
    "ACCELERATE_",
    "DS_",
    "OMP_",
    "MASTER_",
    "KUBERNETES_",
    "SLURM_",
    "UCX_",
    "NVIDIA_",
)
ENV_NAMES = (
    "RANK",
    "LOCAL_RANK",
    "WORLD_SIZE",
    "LOCAL_WORLD_SIZE",
    "NODE_RANK",
    "HF_HOME",
    "LD_LIBRARY_PATH",
    "PATH",
)
# dmesg lines that concern accelerators, the PCIe bus they sit on, or the OOM killer
DMESG_KEEP = re.compile(
    r"NVRM|Xid|nvidia|nvlink|\bGPU\b|npu|davinci|hccl|\bpcie?\b|AER|oom-kill|Out of memory|"
    r"Killed process|invoked oom-killer|mlx\d|infiniband",
    re.I,
)
DMESG_LINES = 300


@dataclass(frozen=True, kw_only=True)
class Capture:
    """One file of the bundle and how it is made."""

    file: str
    argv: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()  # files to read instead of a command (first that exists)
    keep: Callable[[str], str] | None = None  # post-filter of the text (dmesg)
    display: str | None = None  # how the command is shown, when argv is a script
    stdout_only: bool = False  # a listing whose format warnings on stderr would break
    shell_builtin: bool = False  # argv is run by bash -c (ulimit is a builtin)
    # a failing tool's words are evidence too ("NVIDIA-SMI has failed because it couldn't
    # communicate with the NVIDIA driver"); for the others, a failure is only noted
    failure_is_evidence: bool = False


@dataclass(kw_only=True)
class Captured:
    """A capture's result: its file, the text to write (None: nothing worth writing) and how."""

    file: str
    output: Output
    text: str | None = None
    extra: dict[str, str] = field(default_factory=dict)


def _dmesg_tail(text: str) -> str:
    kept = [line for line in text.splitlines() if DMESG_KEEP.search(line)]
    return "\n".join(kept[-DMESG_LINES:]) + ("\n" if kept else "")


_VERSIONS = (
    "import importlib.metadata as m\n"
    "try:\n import torch\nexcept Exception as e:\n print('torch not importable:', e); raise SystemExit(1)\n"
    "print(f'torch=={torch.__version__}')\n"
    "v = getattr(getattr(torch, 'cuda', None), 'nccl', None)\n"
    "try:\n print('nccl==' + '.'.join(map(str, v.version())))\nexcept Exception:\n pass\n"
)


def captures(python: str, home: str) -> list[Capture]:
    """Every capture, in the order shown to the user."""
    hf_home = os.environ.get("HF_HOME") or os.path.join(home, ".cache", "huggingface")
    return [
        Capture(file="pip-freeze.txt", argv=(python, "-m", "pip", "freeze")),
        Capture(file="conda-list.txt", argv=("conda", "list")),
        Capture(file="collect-env.txt", argv=(python, "-m", "torch.utils.collect_env")),
        Capture(
            file="torch-build-versions.txt",
            argv=(python, "-c", _VERSIONS),
            display=f"{python} -c <print torch.__version__ and torch.cuda.nccl.version()>",
            stdout_only=True,
        ),
        Capture(file="accelerate-env.txt", argv=("accelerate", "env")),
        Capture(file="nvidia-smi.txt", argv=("nvidia-smi",), failure_is_evidence=True),
        Capture(file="nvidia-smi-q.txt", argv=("nvidia-smi", "-q"), failure_is_evidence=True),
        Capture(
            file="nvidia-smi-topo.txt", argv=("nvidia-smi", "topo", "-m"), failure_is_evidence=True
        ),
        Capture(file="nvidia-driver-version.txt", paths=("/proc/driver/nvidia/version",)),
        Capture(file="nvcc-version.txt", argv=("nvcc", "--version")),
        Capture(file="npu-smi-info.txt", argv=("npu-smi", "info"), failure_is_evidence=True),
        Capture(
            file="cann-version.txt",
            paths=(
                "/usr/local/Ascend/ascend-toolkit/latest/version.cfg",
                "/usr/local/Ascend/ascend-toolkit/latest/ascend_toolkit_install.info",
            ),
        ),
        Capture(file="ulimit.txt", argv=("ulimit -a",), shell_builtin=True),
        Capture(file="df-h.txt", argv=("df", "-h", "/dev/shm")),
        Capture(file="ip-addr.txt", argv=("ip", "addr", "show")),
        Capture(file="ibv-devinfo.txt", argv=("ibv_devinfo",), failure_is_evidence=True),
        Capture(file="ibstat.txt", argv=("ibstat",), failure_is_evidence=True),
        Capture(file="dmesg.txt", argv=("dmesg",), keep=_dmesg_tail),
        Capture(file="uname.txt", argv=("uname", "-a")),
        Capture(file="nccl-conf.txt", paths=("/etc/nccl.conf", os.path.join(home, ".nccl.conf"))),
        Capture(
            file="accelerate-config/default_config.yaml",
            paths=(os.path.join(hf_home, "accelerate", "default_config.yaml"),),
        ),
    ]


def job_variables(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables worth keeping (launch, NCCL/HCCL/PyTorch switches), sorted by name."""
    return {
        k: environ[k] for k in sorted(environ)
        if k.startswith(ENV_PREFIXES) or k in ENV_NAMES
    }  # fmt: skip


def run_capture(capture: Capture, env: Mapping[str, str], timeout: float) -> Captured:
    """Runs (or reads) one capture; never raises."""
    if capture.paths:
        return _read_paths(capture)
    argv: Sequence[str] = capture.argv
    display = capture.display
    if capture.shell_builtin:
        shell = shutil.which("bash", path=env.get("PATH")) or "/bin/sh"
        display = capture.argv[0]
        argv = (shell, "-c", capture.argv[0])
    out = run_command(
        argv, timeout=timeout, env=env, display=display, stderr=not capture.stdout_only
    )
    text = out.data.decode("utf-8", "replace") if out.data else None
    if text is not None and capture.keep is not None:
        text = capture.keep(text) or None
    if out.status != 0 and not capture.failure_is_evidence:
        text = None  # "No module named torch", "dmesg: read kernel buffer failed"
    if out.status not in (0, None) and not out.note:
        first = (out.data.decode("utf-8", "replace").strip().splitlines() or [""])[0]
        out.note = f"exit status {out.status}"
        out.detail = first[:200]
    return Captured(file=capture.file, output=out, text=text)


def _read_regular(path: str, limit: int) -> bytes:
    """At most `limit` bytes of the regular file at `path`. Anything else (a FIFO, a device,
    a socket) is refused by its type before a read could block: `~/.nccl.conf` made a FIFO
    would otherwise hang `kb collect` and `kb run` forever. The open itself is non-blocking
    and the type is checked again on the open file (it may be swapped in between)."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise OSError(errno.EINVAL, "not a regular file (a FIFO, device or socket is not read)")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file (a FIFO, device or socket is not read)")
        return fh.read(limit)


def _read_paths(capture: Capture, limit: int = 1 << 20) -> Captured:
    tried = []
    texts = []
    for path in capture.paths:
        tried.append(path)
        try:
            data = _read_regular(path, limit)
        except FileNotFoundError:
            continue
        except OSError as exc:
            out = Output(command=f"cat {path}", note=f"unreadable: {exc.strerror or exc}")
            return Captured(file=capture.file, output=out)
        texts.append(data.decode("utf-8", "replace"))
    out = Output(command="cat " + " ".join(tried), status=0 if texts else None)
    if not texts:
        out.note = "not found: " + ", ".join(tried)
        return Captured(file=capture.file, output=out)
    return Captured(file=capture.file, output=out, text="".join(texts))
