"""Lines a program printed complete are never joined as if a terminal had wrapped them
(issue 24, item 5): one test per kind of false join found across the stored fixtures,
and the real wraps next to them still joined."""

from __future__ import annotations

import pytest

from kb.evidence.unwrap import unwrap

W = 100  # the "terminal" width the padding lines below establish


def _pad(text: str, width: int = W) -> str:
    """A line of exactly `width` characters (the width the file's lines share)."""
    return (text + "." * width)[:width]


def _filler(n: int = 3, width: int = W) -> list[str]:
    # several distinct lines of the same width: the file's terminal width is `width`
    return [
        _pad(f"[2024-01-0{i} 10:00:0{i}] INFO filler line number {i} with words", width)
        for i in range(n)
    ]


def _joined(first: str, second: str) -> bool:
    lines = [*_filler(), first, second, "end"]
    out = unwrap("\n".join(lines).encode()).decode().split("\n")
    return out[len(_filler()) + 1] == ""


FALSE_JOINS = {
    "c10 frame after 'Exception raised from'": (
        _pad(
            "Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/P.cpp:635 (most recent call first):"
        ),
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x98 (0x7f in /opt/libc10.so)",
    ),
    "Trainer dict after an NCCL line": (
        _pad(
            "h100-a11:31417:31607 [7] NCCL INFO ncclCommInitRank comm 0x55f3e1a27e10 rank 7 nranks 16 Init COMPLETE"
        ),
        "{'loss': 1.7702, 'grad_norm': 0.911, 'learning_rate': 2.8e-04, 'epoch': 0.33}",
    ),
    "tqdm bar then a log line": (
        _pad("Preparing test set...:  39%|###9      | 26/67 [24:51<30:30, 44.65s/it]", 0) + " " * 0,
        "Missing keys: []",
    ),
    "sentence after a finished sentence": (
        _pad(
            "CUDA kernel errors might be asynchronously reported at some other API call, so the trace is wrong."
        ),
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
    ),
    "Key: value line of a printout": (
        _pad(
            "09/04/2024 02:49:57 - INFO - __main__ - Distributed environment: MULTI_GPU  Backend: nccl"
        ),
        "Num processes: 4",
    ),
    "a series of lines of one shape (digits aside)": (
        _pad("22-09-01 02:48:36.264 : <epoch:  0, iter:     600, lr:4.000e-04> G_loss: 1.637e-02"),
        "22-09-01 03:06:01.631 : <epoch:  0, iter:     800, lr:4.000e-04> G_loss: 7.941e-02",
    ),
    "tab-separated table rows (nvidia-smi topo, show_gids)": (
        _pad("GPU0\t X \tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\t0-55,112-167\t0\t\tN/A"),
        "GPU1\tNV18\t X \tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\t0-55,112-167\t0\t\tN/A",
    ),
    "Ascend error code after a log line": (
        _pad(
            "[ERROR] 2024-05-21-11:57:54 (PID:927000, Device:3, RankID:3) ERR02200 DIST call hccl api failed."
        ),
        "EJ0001: 2024-05-21-11:57:54.167.645 Failed to initialize the HCCP process.",
    ),
    "libstdc++ terminate line": (
        _pad(
            "[ERROR] 2025-12-12-12:10:10 (PID:402, Device:7, RankID:-1) ERR02005 DIST internal error"
        ),
        "terminate called after throwing an instance of 'std::runtime_error'",
    ),
    "nccl-tests comment row": (
        _pad("#   Rank  3 Pid   1688 on    fastmoe device  3 [0xaf] GeForce RTX 2080 Ti"),
        "fastmoe: Test NCCL failure common.cu:777 'unhandled system error'",
    ),
    "program: error: line": (
        _pad("submitit WARNING (2022-08-12 02:06:12,301) - Bypassing signal SIGTERM"),
        "slurmstepd: error: Failed to send MESSAGE_TASK_EXIT: Connection refused",
    ),
    "shell prompt after a log line": (
        _pad(
            "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 41874 closing signal SIGINT"
        ),
        "(lora) lin@lin-4090ws:~/proj/sdxl-lora$ kill -9 41873 41874",
    ),
    "a line padded with spaces to the width (a bar with no total)": (
        "Epoch 0: |" + " " * (W - 10),
        "0: [0, 1, 2, 3, 4] ",
    ),
    "srun --label rank prefix after a bar glued to a print": (
        _pad("Epoch 0: |" + " " * 60 + "| 0/? [00:00<?, ?it/s]1: [10, 11, 12, 13, 14] "),
        "0: [0, 1, 2, 3, 4] ",
    ),
    "Python warning after a log line": (
        _pad(
            '2024-10-21 10:09:44,080 - lmdeploy - INFO - loader.py:152 - rank[1] loading weights - "m.safetensors"'
        ),
        "/usr/local/lib/python3.10/site-packages/torch_npu/distributed/distributed_c10d.py:93: UserWarning: HCCL",
    ),
    "slash-dated log line after a bar": (
        _pad(
            "Loading pipeline components...: 100%|##########| 7/7 [00:03<00:00,  1.98it/s] and more"
        ),
        "11/18/2023 21:04:39 - INFO - __main__ - ***** building LoRA layers (rank=32) *****",
    ),
    "torchrun summary heading": (
        _pad(
            "[2025-01-01 10:00:00,000] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1)"
        ),
        "Root Cause (first observed failure):",
    ),
    "torchrun summary rank row": (
        _pad(
            "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
        ),
        "[0]:",
    ),
}


@pytest.mark.parametrize("kind", sorted(FALSE_JOINS))
def test_complete_lines_are_not_joined(kind: str) -> None:
    first, second = FALSE_JOINS[kind]
    if kind.startswith("tqdm"):
        first = _pad(first.rstrip("."), W)
        first = first[: W - len("[24:51<30:30, 44.65s/it]")] + "[24:51<30:30, 44.65s/it]"
    assert len(first) == W, kind
    assert not _joined(first, second), kind


REAL_WRAPS = {
    "cut inside a word": (
        _pad(
            "[rank2]:[E ProcessGroupNCCL.cpp:563] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, NumelI"
        ),
        "n=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800035 milliseconds before timing out.",
    ),
    "cut inside a path": (
        _pad(
            "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7fb in /home/ps/miniconda3/envs/pytho"
        ),
        "n3.10/site-packages/torch/lib/libc10.so)",
    ),
    "cut after a space": (
        _pad(
            "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. your "
        ),
        "module has parameters that were not used in producing loss.",
    ),
}


@pytest.mark.parametrize("kind", sorted(REAL_WRAPS))
def test_real_wraps_are_still_joined(kind: str) -> None:
    first, second = REAL_WRAPS[kind]
    assert len(first) == W
    assert _joined(first, second), kind


def test_torchrun_summary_survives_a_terminal_width() -> None:
    """torchrun's failure report, pasted from a terminal whose width other lines share,
    comes back line by line."""
    report = [
        "=" * 60,
        "train.py FAILED",
        "-" * 60,
        "Failures:",
        "  <NO_OTHER_FAILURES>",
        "-" * 60,
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2024-03-01_10:00:00",
        "  host      : node-a",
        "  rank      : 3 (local_rank: 3)",
        "  exitcode  : -6 (pid: 4712)",
        "  error_file: <N/A>",
        "  traceback : Signal 6 (SIGABRT) received by PID 4712",
        "=" * 60,
    ]
    data = "\n".join([*_filler(), *report, ""]).encode()
    assert unwrap(data) == data


def test_nvidia_smi_table_survives_a_terminal_width() -> None:
    table = [
        "+-----------------------------------------------------------------------------+",
        "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |",
        "|-------------------------------+----------------------+----------------------+",
        "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
        "|   0  NVIDIA A100-SXM...  On   | 00000000:07:00.0 Off |                    0 |",
        "+-------------------------------+----------------------+----------------------+",
        "Processes:",
    ]
    data = "\n".join([*_filler(width=79), *table, ""]).encode()
    assert unwrap(data) == data


def test_version_split_after_the_word_version_is_joined() -> None:
    """A terminal broke `NCCL version 2.19.3+cuda12.3` after `version`: the one place the
    break is certain (item 5)."""
    data = b"node1:12:12 [0] NCCL INFO NCCL version\n2.19.3+cuda12.3\nnext line\n"
    assert unwrap(data).split(b"\n")[:2] == [
        b"node1:12:12 [0] NCCL INFO NCCL version 2.19.3+cuda12.3",
        b"",
    ]


def test_requirement_split_at_double_equals_is_joined() -> None:
    data = b"torch==\n2.1.0\naccelerate==0.28.0\n"
    assert unwrap(data).split(b"\n")[:2] == [b"torch==2.1.0", b""]
    tail = b"torch\n==2.1.0\n"
    assert unwrap(tail).split(b"\n")[:2] == [b"torch==2.1.0", b""]


def test_a_word_version_before_prose_is_not_joined() -> None:
    data = b"I tried the latest version\nIt still hangs\n"
    assert unwrap(data) == data


def test_a_pip_freeze_split_at_double_equals_keeps_its_version(tree) -> None:  # type: ignore[no-untyped-def]
    from kb.evidence.reader import read_evidence

    text = "torch==\n2.1.0+cu121\naccelerate==0.28.0\nnumpy==1.26.4\n"
    facts = read_evidence(tree({"pip-freeze.txt": text})).facts
    (cap,) = facts.package_captures
    assert cap.packages == {"torch": "2.1.0+cu121", "accelerate": "0.28.0", "numpy": "1.26.4"}
    assert cap.lines["torch"] == 1 and cap.lines["numpy"] == 4
