"""`nvidia-smi topo -m`: link type for every GPU/NIC pair (X, NV#, PIX, PXB, PHB, NODE, SYS).

>>> from kb.evidence.context import FileContext
>>> from kb.evidence.ranks import PathHints
>>> from kb.evidence.limits import Limits
>>> ctx = FileContext("topo.txt", PathHints(), Limits())
>>> NvidiaTopoSource(ctx).parse(
...     "\\tGPU0\\tGPU1\\tCPU Affinity\\tNUMA Affinity\\n"
...     "GPU0\\t X \\tPHB\\t0-31\\t0\\n"
...     "GPU1\\tPHB\\t X \\t0-31\\t0\\n\\nLegend:\\n\\n  X    = Self\\n")
>>> t = ctx.facts.topology
>>> t.devices, t.links["GPU0,GPU1"], t.lines["GPU1"]
(['GPU0', 'GPU1'], 'PHB', 3)
"""

from __future__ import annotations

import re

from kb.evidence.facts import Topology
from kb.evidence.lazy_pattern import lazy
from kb.evidence.sources.base import WholeFileSource

_DEV = lazy(r"^(GPU|NIC|NPU)\d+$")


def _cells(line: str) -> list[str]:
    if "\t" in line:
        return [c.strip() for c in line.split("\t")]
    return [c.strip() for c in re.split(r"\s{2,}", line)]


class NvidiaTopoSource(WholeFileSource):
    name = "nvidia-topo"
    description = "`nvidia-smi topo -m` matrix"

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        if re.search(r"X\s+= Self", head) and ("PHB" in head or "NV#" in head):
            return 0.95
        if re.search(r"^\s*GPU0\s+GPU1", head, re.M) and "CPU Affinity" in head:
            return 0.9
        return 0.0

    def parse(self, text: str) -> None:
        topo = Topology(file=self.ctx.display)
        columns: list[str] = []
        for no, raw in enumerate(text.splitlines(), 1):
            if not raw.strip():
                if columns and topo.devices:
                    break
                continue
            cells = _cells(raw.rstrip())
            if not columns:
                names = [c for c in cells if c]
                if names and _DEV.match(names[0]):
                    columns = [c for c in names if _DEV.match(c)]
                continue
            row = cells[0]
            if not _DEV.match(row):
                continue
            topo.devices.append(row)
            topo.lines[row] = no
            for col, value in zip(columns, cells[1:], strict=False):
                if col != row:
                    topo.links[f"{row},{col}"] = value
        if topo.devices:
            self.ctx.facts.topology = topo
