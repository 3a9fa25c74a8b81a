"""Environment dumps: `env`, `printenv`, `export -p` (`declare -x K="v"`), `set`-style K=V files,
and the variables a YAML job spec or a JSON document lists (`env_listings.py`).

>>> from kb.evidence.context import FileContext
>>> from kb.evidence.ranks import PathHints
>>> from kb.evidence.limits import Limits
>>> ctx = FileContext("env.txt", PathHints(), Limits())
>>> EnvDumpSource(ctx).parse('declare -x NCCL_P2P_DISABLE="1"\\nexport TORCH_NCCL_ASYNC_ERROR_HANDLING=1\\nPATH=/usr/bin\\n')
>>> ctx.facts.env_captures[0].variables
{'NCCL_P2P_DISABLE': '1', 'TORCH_NCCL_ASYNC_ERROR_HANDLING': '1', 'PATH': '/usr/bin'}
"""

from __future__ import annotations

import re

from kb.evidence.facts import EnvCapture
from kb.evidence.lazy_pattern import lazy
from kb.evidence.sources.base import WholeFileSource
from kb.evidence.sources.common import fraction
from kb.evidence.sources.env_listings import (
    json_env,
    looks_like_json_env,
    looks_like_yaml_env,
    yaml_env,
)

# `torch==2.1.0` (a requirements line) is not a variable: `==` never starts an env dump's value
_VAR = lazy(r"^(?:declare -x |export )?([A-Za-z_][A-Za-z0-9_]*)=(?!=)(.*)$")
_LOOSE = lazy(r"^(?:declare -x |export )?[A-Za-z_][A-Za-z0-9_]*=(?!=)")


def _unquote(v: str) -> str:
    v = v.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        v = v[1:-1]
        v = v.replace('\\"', '"').replace("\\\\", "\\")
    return v


class EnvDumpSource(WholeFileSource):
    name = "env-dump"
    description = "environment variable dumps (env, printenv, export -p)"

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        n, frac = fraction(head, _LOOSE)
        if n >= 3 and frac >= 0.6:
            return 0.85
        if n >= 1 and frac >= 0.5 and re.search(r"env", name, re.I):
            return 0.8
        if looks_like_json_env(head) or looks_like_yaml_env(head):
            return 0.9  # a job spec or `docker inspect` listing variables
        return 0.0

    def parse(self, text: str) -> None:
        start = text.lstrip()[:1]
        listed = json_env(text) if start in ("{", "[") else yaml_env(text)
        if listed:
            cap = EnvCapture(file=self.ctx.display)
            for name, value, no in listed:
                if name not in cap.variables:
                    cap.variables[name], cap.lines[name] = value, no
            self.ctx.facts.env_captures.append(cap)
            return
        cap = EnvCapture(file=self.ctx.display)
        for no, raw in enumerate(text.splitlines(), 1):
            m = _VAR.match(raw.rstrip("\r"))
            if m:
                cap.variables[m.group(1)] = _unquote(m.group(2))
                cap.lines[m.group(1)] = no
        if cap.variables:
            self.ctx.facts.env_captures.append(cap)
