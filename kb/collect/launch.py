"""What `kb run` changes about a launch, and nothing else: environment switches that make
the job leave evidence (cheap ones always, heavy ones behind `--heavy`), never overriding a
value the user set, and for torchrun its own per-process log flags.

>>> env = debug_environment("/b", heavy=False, current={"NCCL_DEBUG": "WARN"})
>>> "NCCL_DEBUG" in env, env["TORCH_NCCL_DUMP_ON_TIMEOUT"]
(False, '1')
>>> launcher_argv(["torchrun", "--nproc-per-node", "4", "train.py"], "/b")[0][:7]
['torchrun', '--log-dir', '/b/logs', '--redirects', '3', '--tee', '3']
>>> launcher_argv(["python", "-m", "torch.distributed.run", "train.py"], "/b")[1]
True
>>> launcher_argv(["deepspeed", "train.py"], "/b")
(['deepspeed', 'train.py'], False)
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

FLIGHT_RECORDER_PREFIX = "flight-recorder/nccl_trace_rank_"


def cheap_switches(bundle: str, torchrun: bool) -> dict[str, str]:
    """Switches that cost little at run time; each is documented in the bundle."""
    env = {
        "NCCL_DEBUG": "INFO",
        "TORCH_NCCL_TRACE_BUFFER_SIZE": "2000",  # Flight Recorder: the last 2000 collectives
        "TORCH_NCCL_DUMP_ON_TIMEOUT": "1",
        "TORCH_NCCL_DEBUG_INFO_TEMP_FILE": os.path.join(bundle, FLIGHT_RECORDER_PREFIX),
        # the same switches under the names newer PyTorch reads (TORCH_FR_*: 2.13 warns that
        # TORCH_NCCL_TRACE_BUFFER_SIZE is deprecated); older releases ignore them
        "TORCH_FR_BUFFER_SIZE": "2000",
        "TORCH_FR_DUMP_TEMP_FILE": os.path.join(bundle, FLIGHT_RECORDER_PREFIX),
        "TORCH_SHOW_CPP_STACKTRACES": "1",
        "PYTHONFAULTHANDLER": "1",  # a Python stack on SIGSEGV/SIGABRT of any rank
        "PYTHONUNBUFFERED": "1",  # lines reach the logs (and the progress watchdog) as printed
        "ASCEND_PROCESS_LOG_PATH": os.path.join(bundle, "ascend-log"),  # plogs in the bundle
    }
    if not torchrun:  # torchrun's --log-dir keeps each process's stderr, NCCL lines included
        env["NCCL_DEBUG_FILE"] = os.path.join(bundle, "nccl", "%h.%p.log")
    return env


HEAVY_SWITCHES = {
    "TORCH_DISTRIBUTED_DEBUG": "DETAIL",  # checks every collective's fingerprint across ranks
    "TORCH_CPP_LOG_LEVEL": "INFO",
    "HCCL_ENTRY_LOG_ENABLE": "1",  # one plog line per HCCL collective
    "ASCEND_GLOBAL_LOG_LEVEL": "1",  # INFO
}


def debug_environment(bundle: str, *, heavy: bool, current: Mapping[str, str],
                      torchrun: bool = False) -> dict[str, str]:  # fmt: skip
    """The variables `kb run` adds: only those the user has not set."""
    wanted = cheap_switches(bundle, torchrun)
    if heavy:
        wanted.update(HEAVY_SWITCHES)
    return {k: v for k, v in wanted.items() if k not in current}


_TORCHRUN_MODULES = ("torch.distributed.run", "torch.distributed.launch")
_LOG_FLAGS = ("--log-dir", "--log_dir", "--redirects", "--tee")


def _is_python(word: str) -> bool:
    name = os.path.basename(word)
    return name.startswith("python")


def torchrun_position(argv: Sequence[str]) -> int | None:
    """Index after which torchrun's own options go, or None when this is not torchrun."""
    if not argv:
        return None
    if os.path.basename(argv[0]) == "torchrun":
        return 1
    if _is_python(argv[0]) and len(argv) >= 3 and argv[1] == "-m" and argv[2] in _TORCHRUN_MODULES:
        return 3
    return None


def launcher_argv(argv: Sequence[str], bundle: str) -> tuple[list[str], bool]:
    """The command to run, and whether it is torchrun (then its --log-dir keeps one stdout
    and stderr per process in the bundle; flags the user gave are kept as they are)."""
    at = torchrun_position(argv)
    if at is None:
        return list(argv), False
    given = {a.split("=", 1)[0] for a in argv[at:]}
    extra: list[str] = []
    if not given & {"--log-dir", "--log_dir"}:
        extra += ["--log-dir", os.path.join(bundle, "logs")]
    if "--redirects" not in given:
        extra += ["--redirects", "3"]
    if "--tee" not in given:
        extra += ["--tee", "3"]
    return [*argv[:at], *extra, *argv[at:]], True
