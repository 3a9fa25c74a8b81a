"""Which accelerator stack the evidence comes from, and the commands that fit it.

A CUDA user with an NCCL error should not be told to `export HCCL_ENTRY_LOG_ENABLE=1` first,
nor an Ascend user to run `nvidia-smi`. Cases are written for every platform they cover, so a
command block often mixes both; the report keeps the lines of the platform the evidence shows
and drops the other's, and leaves everything as written when the evidence does not say.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from kb.evidence.lazy_pattern import lazy

CUDA, ASCEND = "cuda", "ascend"

_WORDS = {
    CUDA: lazy(r"\b(NCCL|CUDA|nvidia-smi|nvcc|NVIDIA|cudnn)|\bnccl[-_.]", re.I),
    ASCEND: lazy(r"\b(HCCL|ASCEND|CANN|npu-smi|torch_npu|torch-npu|plog|Ascend)|\bnpu\b", re.I),
}
_SOURCES = {
    "nccl": CUDA,
    "nvidia-smi": CUDA,
    "nvidia-topo": CUDA,
    "plog": ASCEND,
    "npu-smi": ASCEND,
}


def detect(texts: Iterable[str], kinds: Iterable[str] = (), facts: Any = None) -> str | None:
    """CUDA, Ascend, or None when the evidence shows both or neither.

    >>> detect(["NCCL WARN socketStartConnect: exceeded retries"])
    'cuda'
    >>> detect(["EI9999: HCCL notify wait timeout"], ["plog"])
    'ascend'
    >>> detect(["Killed"]) is None
    True
    """
    votes = {CUDA: 0, ASCEND: 0}
    for kind in kinds:
        if kind in _SOURCES:
            votes[_SOURCES[kind]] += 3
    for text in texts:
        for platform, words in _WORDS.items():
            if words.search(text):
                votes[platform] += 1
    if facts is not None:
        for device in getattr(facts, "devices", []):
            votes[ASCEND if device.kind == "npu" else CUDA] += 3
        if getattr(facts, "cann_version", None):
            votes[ASCEND] += 3
        if getattr(facts, "nccl_version", None) or getattr(facts, "cuda_version", None):
            votes[CUDA] += 3
    if votes[CUDA] == votes[ASCEND]:
        return None
    return CUDA if votes[CUDA] > votes[ASCEND] else ASCEND


def other(platform: str | None) -> str | None:
    return {CUDA: ASCEND, ASCEND: CUDA}.get(platform or "")


def foreign(text: str, platform: str | None) -> bool:
    """The text names only the other platform's tools (`HCCL_…` for a CUDA run)."""
    away = other(platform)
    if platform is None or away is None:
        return False
    return bool(_WORDS[away].search(text)) and not _WORDS[platform].search(text)


def fit_command(code: str, platform: str | None) -> str:
    """A command block without the lines meant for the other platform; a line that carries
    on a previous one (or is carried on) stays, so the shell syntax is never broken.

    >>> fit_command("export NCCL_DEBUG=INFO\\nexport HCCL_ENTRY_LOG_ENABLE=1  # Ascend", "cuda")
    'export NCCL_DEBUG=INFO'
    >>> fit_command("nvidia-smi > smi.txt\\nnpu-smi info > npu.txt", "ascend")
    'npu-smi info > npu.txt'
    >>> fit_command("nvidia-smi > smi.txt\\nnpu-smi info > npu.txt", None).splitlines()
    ['nvidia-smi > smi.txt', 'npu-smi info > npu.txt']
    """
    lines = code.splitlines()
    kept = []
    for i, line in enumerate(lines):
        joined = line.rstrip().endswith("\\") or (i and lines[i - 1].rstrip().endswith("\\"))
        if not joined and foreign(line, platform):
            continue
        kept.append(line)
    return "\n".join(kept).strip("\n")
