"""`accelerate env`: versions, GPU type / CANN version and the default config block.

>>> from kb.evidence.context import FileContext
>>> from kb.evidence.ranks import PathHints
>>> from kb.evidence.limits import Limits
>>> ctx = FileContext("acc.txt", PathHints(), Limits())
>>> AccelerateEnvSource(ctx).parse(
...     "- `Accelerate` version: 0.28.0\\n- PyTorch version (GPU?): 2.1.0 (True)\\n"
...     "- GPU type: NVIDIA A100-SXM4-80GB\\n- `Accelerate` default config:\\n"
...     "\\t- distributed_type: MULTI_GPU\\n\\t- num_processes: 2\\n")
>>> ctx.facts.package_captures[0].packages, ctx.facts.accelerate_config
({'accelerate': '0.28.0', 'torch': '2.1.0'}, {'distributed_type': 'MULTI_GPU', 'num_processes': '2'})
"""

from __future__ import annotations

import re

from kb.evidence.facts import Device
from kb.evidence.lazy_pattern import lazy
from kb.evidence.sources.base import WholeFileSource
from kb.evidence.sources.packages import add_capture

_ITEM = lazy(r"^- (.+?): ?(.*)$")
_CONFIG = lazy(r"^\s+- ([\w.]+): ?(.*)$")
_NAMES = {"pytorch": "torch", "accelerate": "accelerate", "numpy": "numpy", "transformers": "transformers",
          "deepspeed": "deepspeed", "torch_npu": "torch-npu", "torch npu": "torch-npu"}  # fmt: skip


class AccelerateEnvSource(WholeFileSource):
    name = "accelerate-env"
    description = "`accelerate env` output"

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        if "`Accelerate` version:" in head or "- `Accelerate` default config" in head:
            return 0.95
        return 0.0

    def parse(self, text: str) -> None:
        rows: list[tuple[str, str, int]] = []
        facts = self.ctx.facts
        in_config = False
        config: dict[str, object] = {}
        for no, raw in enumerate(text.splitlines(), 1):
            line = raw.rstrip()
            if in_config:
                m = _CONFIG.match(line)
                if m:
                    config[m.group(1)] = m.group(2)
                    continue
                in_config = False
            m = _ITEM.match(line)
            if not m:
                continue
            key, value = m.group(1).replace("`", "").strip(), m.group(2).strip()
            low = key.lower()
            if "config" in low and ("default" in low or "passed" in low):
                in_config = True
                continue
            vm = re.match(r"^(.*?) version(?: \(gpu\?\))?$", low)
            if vm and value:
                pkg = _NAMES.get(vm.group(1).strip())
                if pkg:
                    rows.append((pkg, value.split()[0], no))
                elif vm.group(1) == "cann":
                    facts.cann_version = facts.cann_version or value
            elif low == "gpu type" and value:
                facts.devices.append(Device(model=value, file=self.ctx.display, line=no))
            elif low in ("npu type", "npu") and value:
                facts.devices.append(
                    Device(model=value, kind="npu", file=self.ctx.display, line=no)
                )
        add_capture(self.ctx, self.name, rows)
        if config and not facts.accelerate_config:
            facts.accelerate_config = config
