"""`python -m torch.utils.collect_env` (and torch_npu's variant): torch/CUDA/driver versions,
GPU models, and the `[pip3]`/`[conda]` package lines.

>>> from kb.evidence.context import FileContext
>>> from kb.evidence.ranks import PathHints
>>> from kb.evidence.limits import Limits
>>> ctx = FileContext("ce.txt", PathHints(), Limits())
>>> CollectEnvSource(ctx).parse(
...     "Collecting environment information...\\nPyTorch version: 2.1.0+cu121\\n"
...     "CUDA used to build PyTorch: 12.1\\nGPU models and configuration: \\nGPU 0: NVIDIA A100-SXM4-80GB\\n"
...     "GPU 1: NVIDIA A100-SXM4-80GB\\nNvidia driver version: 535.104.05\\n"
...     "Versions of relevant libraries:\\n[pip3] numpy==1.26.4\\n[pip3] torch==2.1.0+cu121\\n"
...     "[conda] torch                     2.1.0+cu121              pypi_0    pypi\\n")
>>> f = ctx.facts
>>> f.driver_version, f.torch_cuda_version, [d.model for d in f.devices], f.package_captures[0].packages
('535.104.05', '12.1', ['NVIDIA A100-SXM4-80GB', 'NVIDIA A100-SXM4-80GB'], {'torch': '2.1.0+cu121', 'numpy': '1.26.4'})
"""

from __future__ import annotations

import re

from kb.evidence.facts import Device
from kb.evidence.lazy_pattern import lazy
from kb.evidence.sources.base import WholeFileSource
from kb.evidence.sources.packages import add_capture

_KEYS = ("PyTorch version:", "CUDA used to build PyTorch:", "Is CUDA available:", "Versions of relevant libraries:",
         "Nvidia driver version:", "GPU models and configuration:")  # fmt: skip
_GPU = lazy(r"^(?:GPU models and configuration:\s*)?GPU (\d+): (.+?)\s*$")
_PIP = lazy(r"^\[pip\d?\]\s+([A-Za-z0-9][\w.-]*)\s*==\s*(\S+)")
_CONDA = lazy(r"^\[conda\]\s+([A-Za-z0-9][\w.-]*)\s+(\d\S*)")
_UNKNOWN = ("Could not collect", "N/A", "None", "")


class CollectEnvSource(WholeFileSource):
    name = "collect-env"
    description = "`python -m torch.utils.collect_env` output"

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        if "Collecting environment information" in head:
            return 0.95
        return 0.9 if sum(k in head for k in _KEYS) >= 3 else 0.0

    def parse(self, text: str) -> None:
        facts = self.ctx.facts
        rows: list[tuple[str, str, int]] = []
        conda: list[tuple[str, str, int]] = []
        for no, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            _key, _, value = line.partition(":")
            value = value.strip()
            known = value not in _UNKNOWN
            if line.startswith("PyTorch version:") and known:
                rows.append(("torch", value.split()[0], no))
            elif line.startswith(("Torch-npu version:", "torch_npu version:")) and known:
                rows.append(("torch-npu", value.split()[0], no))
            elif line.startswith("CUDA used to build PyTorch:") and known and value != "No CUDA":
                facts.torch_cuda_version = value
            elif line.startswith("Nvidia driver version:") and known:
                facts.driver_version = facts.driver_version or value
            elif re.match(r"^CANN(?: version)?:", line) and known:
                facts.cann_version = facts.cann_version or value
            elif (m := _GPU.match(line)) is not None:
                facts.devices.append(
                    Device(index=int(m.group(1)), model=m.group(2), file=self.ctx.display, line=no)
                )
            elif (m := _PIP.match(line)) is not None:
                rows.append((m.group(1), m.group(2), no))
            elif (m := _CONDA.match(line)) is not None:
                conda.append((m.group(1), m.group(2), no))
        have = {r[0].lower().replace("_", "-") for r in rows}
        rows.extend(r for r in conda if r[0].lower().replace("_", "-") not in have)
        # the "PyTorch version:" line and "[pip3] torch==" agree; keep the pip line's position
        add_capture(self.ctx, self.name, rows)
