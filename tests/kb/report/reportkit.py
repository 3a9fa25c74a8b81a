"""Evidence folders a new user would hand to `kb diagnose`, and the report run on them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kb.cli.main import main

ROOT = Path(__file__).resolve().parents[3]
CASES = ROOT / "cases"
SOCKET = (
    CASES
    / "nccl-socket-wrong-interface/fixtures/positive/a100x16-2node-ifname-lo-leftover-torchrun-logdir"
)
# a confirmed release bug beside a possible look-alike (a socket fallback in a container)
# a confirmed match with a weaker candidate beside it; the RTX 5090 shm fallback used before
# lost its only possible candidate (no-ib-in-container-socket-fallback) when that case learnt
# to stand down on one node
WITH_POSSIBLE = (
    CASES / "docker-shm-too-small-nccl/fixtures/positive/l4x8-k8s-pod-torchrun-logdir-partial"
)
OOM_TAIL = (
    CASES
    / "host-oom-killer-kills-rank/fixtures/positive/gh-colossalai-3172-torchrun-rank0-exitcode-9-cpu-memory/console.log"
)
# a real incident the confidence ladder leaves at likely: a printed fact of the case's own
# (the 64 MB /dev/shm in df -h), nothing independent beside it yet
LIKELY = (
    CASES / "docker-shm-too-small-nccl/fixtures/positive/gh-spartan-369-docker-64m-shm-bus-error"
)
MISMATCH = (
    CASES / "collective-mismatch-across-ranks/fixtures/positive/detail-broadcast-vs-allreduce-2gpu"
)
HANG_NOTES = (
    "Training on 8 GPUs with torchrun hangs at evaluation. After epoch 1 the training loop "
    "finishes and eval starts, then nothing happens for 30 minutes, no error printed.\n"
)


def copy_fixture(src: Path, dest: Path) -> Path:
    """A fixture as the user has it: without the corpus's own incident.yaml."""
    if src.is_file():
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, dest / src.name)
    else:
        shutil.copytree(src, dest, ignore=shutil.ignore_patterns("incident.yaml"))
    return dest


def socket_folder(tmp: Path) -> Path:
    return copy_fixture(SOCKET, tmp / "socket")


def with_possible_folder(tmp: Path) -> Path:
    return copy_fixture(WITH_POSSIBLE, tmp / "with-possible")


def oom_tail_folder(tmp: Path) -> Path:
    return copy_fixture(OOM_TAIL, tmp / "oom-tail")


def likely_folder(tmp: Path) -> Path:
    return copy_fixture(LIKELY, tmp / "likely")


def notes_only_folder(tmp: Path) -> Path:
    folder = tmp / "notes-only"
    folder.mkdir()
    (folder / "notes.txt").write_text(HANG_NOTES, encoding="utf-8")
    return folder


def diagnose(capsys: pytest.CaptureFixture[str], folder: Path, *extra: str) -> str:
    capsys.readouterr()
    code = main(["diagnose", "--evidence", str(folder), *extra])
    assert code in (0, 1)
    return capsys.readouterr().out


def first_screen(text: str, lines: int = 24) -> list[str]:
    return text.splitlines()[:lines]
