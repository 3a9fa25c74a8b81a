"""`nvidia-smi` (default table), `nvidia-smi -L` and `nvidia-smi -q`: devices, driver, CUDA.

>>> from kb.evidence.context import FileContext
>>> from kb.evidence.ranks import PathHints
>>> from kb.evidence.limits import Limits
>>> ctx = FileContext("smi.txt", PathHints(), Limits())
>>> NvidiaSmiSource(ctx).parse(
...     "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\\n"
...     "|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |\\n"
...     "| N/A   33C    P0    61W / 400W |      0MiB / 81920MiB |      0%      Default |\\n")
>>> f = ctx.facts
>>> f.driver_version, f.cuda_version, [(d.index, d.model, d.bus_id, d.memory_mb) for d in f.devices]
('535.104.05', '12.2', [(0, 'NVIDIA A100-SXM4-80GB', '00000000:07:00.0', 81920)])
"""

from __future__ import annotations

import re

from kb.evidence.facts import Device
from kb.evidence.lazy_pattern import lazy
from kb.evidence.sources.base import WholeFileSource

_BANNER = lazy(r"Driver Version:\s*([\d.]+)(?:.*?CUDA Version:\s*([\d.]+))?")
_ROW = lazy(
    r"^\|\s+(\d+)\s+(.+?)\s+(?:On|Off)\s+\|\s+([0-9A-Fa-f]+:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d)\s"
)
_ROW_NEW = lazy(
    r"^\|\s+(\d+)\s+(.+?)\s{2,}.*?\|\s+([0-9A-Fa-f]+:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d)\s"
)
_MEM = lazy(r"(\d+)MiB\s*/\s*(\d+)MiB")
_L = lazy(r"^GPU (\d+): (.+?) \(UUID: ")
_Q_GPU = lazy(r"^GPU ([0-9A-Fa-f]+:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d)\s*$")
_Q_KV = lazy(r"^\s*([A-Za-z][\w .()/-]*?)\s+: (.*)$")


class NvidiaSmiSource(WholeFileSource):
    name = "nvidia-smi"
    description = "nvidia-smi default table, -L, -q"

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        if "NVIDIA-SMI" in head and "Driver Version" in head:
            return 0.95
        if re.search(r"^GPU \d+: .+\(UUID: GPU-", head, re.M):
            return 0.9
        if "==============NVSMI LOG==============" in head or re.search(
            r"^Attached GPUs\s+:", head, re.M
        ):
            return 0.95
        return 0.0

    def parse(self, text: str) -> None:
        lines = text.splitlines()
        facts = self.ctx.facts
        pending: Device | None = None
        qdev: Device | None = None
        in_fb = False
        for no, raw in enumerate(lines, 1):
            m = _BANNER.search(raw)
            if m and "|" in raw:
                facts.driver_version = m.group(1)
                facts.cuda_version = m.group(2) or facts.cuda_version
                continue
            m = _ROW.match(raw) or _ROW_NEW.match(raw)
            if m and "MiB" not in raw:
                name = re.sub(r"\s+(On|Off)$", "", m.group(2).strip())
                pending = Device(index=int(m.group(1)), model=name, bus_id=m.group(3),
                                 file=self.ctx.display, line=no)  # fmt: skip
                facts.devices.append(pending)
                continue
            if pending is not None:
                mm = _MEM.search(raw)
                if mm:
                    pending.memory_mb = int(mm.group(2))
                    pending = None
                continue
            m = _L.match(raw)
            if m:
                facts.devices.append(
                    Device(index=int(m.group(1)), model=m.group(2), file=self.ctx.display, line=no)
                )
                continue
            m = _Q_GPU.match(raw)
            if m:
                qdev = Device(model="", bus_id=m.group(1), file=self.ctx.display, line=no)
                facts.devices.append(qdev)
                in_fb = False
                continue
            kv = _Q_KV.match(raw)
            if kv:
                self._q(kv.group(1).strip(), kv.group(2).strip(), qdev, in_fb)
                in_fb = in_fb and kv.group(1).strip() not in ("Total", "Reserved", "Used", "Free")
            elif raw.strip() in ("FB Memory Usage",):
                in_fb = True
        for dev in facts.devices:
            if not dev.model:
                dev.model = "unknown"

    def _q(self, key: str, value: str, dev: Device | None, in_fb: bool) -> None:
        facts = self.ctx.facts
        if key == "Driver Version":
            facts.driver_version = value
        elif key == "CUDA Version":
            facts.cuda_version = value
        elif dev is None:
            return
        elif key == "Product Name":
            dev.model = value
        elif key == "Minor Number" and value.isdigit():
            dev.index = int(value)
        elif key == "Total" and in_fb and dev.memory_mb is None:
            m = re.match(r"(\d+) MiB", value)
            if m:
                dev.memory_mb = int(m.group(1))
