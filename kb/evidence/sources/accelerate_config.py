"""accelerate config YAML (`default_config.yaml`): the shape `accelerate config` writes is read
by `plain_yaml`, anything else with ruamel's safe loader.

>>> from kb.evidence.context import FileContext
>>> from kb.evidence.ranks import PathHints
>>> from kb.evidence.limits import Limits
>>> ctx = FileContext("default_config.yaml", PathHints(), Limits())
>>> AccelerateConfigSource(ctx).parse("compute_environment: LOCAL_MACHINE\\ndistributed_type: MULTI_NPU\\nnum_processes: 2\\n")
>>> ctx.facts.accelerate_config
{'compute_environment': 'LOCAL_MACHINE', 'distributed_type': 'MULTI_NPU', 'num_processes': 2}
"""

from __future__ import annotations

import re

from kb.evidence.facts import EvidenceLine
from kb.evidence.sources.base import WholeFileSource
from kb.evidence.sources.plain_yaml import read_plain

_KEYS = ("compute_environment", "distributed_type", "num_processes", "mixed_precision", "machine_rank",
         "num_machines", "gpu_ids", "main_process_ip", "rdzv_backend", "fsdp_config", "deepspeed_config")  # fmt: skip


MAX_NODES = 2000  # a real accelerate config has a few dozen values
MAX_DEPTH = 12


class _TooLarge(Exception):
    pass


def _plain(value: object, budget: list[int] | None = None, depth: int = 0) -> object:
    """ruamel's CommentedMap/Seq to plain dict/list so the facts serialize, within a budget:
    YAML aliases can make a few hundred bytes stand for billions of values ("billion
    laughs"), and copying them out would exhaust memory.

    >>> laughs = ["x"] * 9
    >>> for _ in range(8):
    ...     laughs = [laughs] * 9
    >>> try:
    ...     _plain({"a": laughs})
    ... except _TooLarge as exc:
    ...     print(exc)
    more than 2000 values
    """
    budget = budget if budget is not None else [MAX_NODES]
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooLarge(f"more than {MAX_NODES} values")
    if depth > MAX_DEPTH:
        raise _TooLarge(f"nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, dict):
        return {str(k)[:200]: _plain(v, budget, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, budget, depth + 1) for v in value]
    if isinstance(value, str):
        return value[:1000]
    return value


class AccelerateConfigSource(WholeFileSource):
    name = "accelerate-config"
    description = "accelerate config YAML"

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        hits = sum(bool(re.search(rf"^{k}\s*:", head, re.M)) for k in _KEYS)
        if hits >= 2:
            return 0.95
        return 0.5 if hits == 1 and name.endswith((".yaml", ".yml")) else 0.0

    def parse(self, text: str) -> None:
        data: object = read_plain(text)  # what `accelerate config` writes: no YAML library
        if data is None:
            from ruamel.yaml import YAML  # imported here: only other YAML needs it
            from ruamel.yaml.error import YAMLError

            try:
                data = YAML(typ="safe", pure=True).load(text)
            except (YAMLError, ValueError, TypeError) as exc:
                self.ctx.facts.suspicious.append(
                    EvidenceLine(file=self.ctx.display, line=1,
                                 text=f"YAML not readable: {exc}"[:500], source=self.name)
                )  # fmt: skip
                return
        if isinstance(data, dict):
            try:
                plain = _plain(data)
            except _TooLarge as exc:
                self.ctx.facts.suspicious.append(
                    EvidenceLine(
                        file=self.ctx.display,
                        line=1,
                        source=self.name,
                        text=f"YAML not read: {exc} (an accelerate config has a few dozen)",
                    )
                )
                return
            assert isinstance(plain, dict)
            self.ctx.facts.accelerate_config = plain
