"""`npu-smi info`: Ascend NPUs (two table rows per NPU) and the npu-smi/driver version.

>>> from kb.evidence.context import FileContext
>>> from kb.evidence.ranks import PathHints
>>> from kb.evidence.limits import Limits
>>> ctx = FileContext("npu.txt", PathHints(), Limits())
>>> NpuSmiSource(ctx).parse(
...     "| npu-smi 24.1.0                   Version: 24.1.0                                               |\\n"
...     "| 0     910B                | OK            | 70.0        34                0    / 0             |\\n"
...     "| 0                         | 0000:C1:00.0  | 0           1197 / 13553      1365 / 32768         |\\n")
>>> [(d.index, d.model, d.kind, d.bus_id, d.memory_mb) for d in ctx.facts.devices], ctx.facts.driver_version
([(0, '910B', 'npu', '0000:C1:00.0', 32768)], '24.1.0')
"""

from __future__ import annotations

import re

from kb.evidence.facts import Device
from kb.evidence.lazy_pattern import lazy
from kb.evidence.sources.base import WholeFileSource

_VERSION = lazy(r"npu-smi\s+(\S+)\s+Version:\s*(\S+)")
_ROW1 = lazy(r"^\|\s*(\d+)\s+(\S[^|]*?)\s*\|\s*(\w+)\s*\|")
_ROW2 = lazy(r"^\|\s*\d+\s*\|\s*([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d)\s*\|(.*)\|")
_HBM = lazy(r"(\d+)\s*/\s*(\d+)\s*$")


class NpuSmiSource(WholeFileSource):
    name = "npu-smi"
    description = "`npu-smi info` table"

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        return 0.95 if re.search(r"npu-smi \S+\s+Version:", head) else 0.0

    def parse(self, text: str) -> None:
        facts = self.ctx.facts
        pending: Device | None = None
        procs = False  # the process table follows the devices; its rows look alike
        for no, raw in enumerate(text.splitlines(), 1):
            m = _VERSION.search(raw)
            if m:
                facts.driver_version = m.group(2)
                continue
            if "No running processes" in raw or "Process id" in raw:
                procs = True
            if procs:
                continue
            m2 = _ROW2.match(raw)
            if m2 and pending is not None:
                pending.bus_id = m2.group(1)
                hbm = _HBM.search(m2.group(2).strip())
                if hbm:
                    pending.memory_mb = int(hbm.group(2))
                pending = None
                continue
            m = _ROW1.match(raw)
            if m and not m.group(2).startswith(("Name", "Chip")) and m.group(3) not in ("Health",):
                pending = Device(index=int(m.group(1)), model=m.group(2), kind="npu",
                                 file=self.ctx.display, line=no)  # fmt: skip
                facts.devices.append(pending)
