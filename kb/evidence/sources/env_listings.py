"""Environment variables listed inside structured files: a Kubernetes/YAML job spec's `env:`
list (`- name: NCCL_IB_HCA` / `value: mlx5_0`), docker-compose `environment:` entries, a JSON
object of variables, `docker inspect`'s `"Env": ["NCCL_…=…"]`. Read as text, line by line, so a
truncated paste still gives what it shows, with the line of each variable.

>>> spec = "spec:\\n  env:\\n  - name: NCCL_IB_HCA\\n    value: mlx5_0\\n  - name: X\\n    valueFrom: {}\\n"
>>> yaml_env(spec)
[('NCCL_IB_HCA', 'mlx5_0', 3)]
>>> json_env('{"Config": {"Env": [\\n  "NCCL_DEBUG=INFO",\\n  "PATH=/usr/bin"]}}')
[('NCCL_DEBUG', 'INFO', 2), ('PATH', '/usr/bin', 3)]
>>> json_env('{"NCCL_SOCKET_IFNAME": "eth0", "world_size": 8, "MASTER_PORT": 29500}')
[('NCCL_SOCKET_IFNAME', 'eth0', 1), ('MASTER_PORT', '29500', 1)]
"""

from __future__ import annotations

import re

from kb.evidence.lazy_pattern import lazy

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_ITEM_NAME = lazy(rf"^(\s*)-\s+name:\s*[\"']?({_NAME})[\"']?\s*$")
_VALUE = lazy(r"^\s*value:\s*(.*?)\s*$")
_SECTION = lazy(r"^(\s*)-?\s*(?:env|environment|envs|variables|envVars|env_vars):\s*$")
_LIST_ASSIGN = lazy(rf"^\s*-\s+[\"']?({_NAME})=(.*?)[\"']?\s*$")
_MAP_ENTRY = lazy(r"^\s*([A-Z][A-Z0-9_]*):\s*(.*?)\s*$")  # upper case: a variable, not a key
# `"NCCL_DEBUG=INFO"` (docker inspect), `"NCCL_IB_HCA": "mlx5_0"` (an object of variables),
# `"name": "NCCL_X", "value": "1"` (a job spec as JSON)
_JSON_ASSIGN = lazy(rf"\"({_NAME})=([^\"\n]*)\"")
_JSON_KEY = lazy(r"\"([A-Z][A-Z0-9]*_[A-Z0-9_]+)\"\s*:\s*(?:\"([^\"\n]*)\"|(-?\d+(?:\.\d+)?))")
_JSON_PAIR = lazy(rf"\"name\"\s*:\s*\"({_NAME})\"\s*,\s*\"value\"\s*:\s*\"([^\"\n]*)\"")


# JSON opens with `{"` or `[{`/`["`: a dmesg line (`[    0.37] … "pci=nocrs"`) does not
_JSON_START = lazy(r"\s*(?:\{\s*\"|\[\s*[\"{\[])")


def _unquote(v: str) -> str:
    v = v.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        return v[1:-1]
    return v


def yaml_env(text: str) -> list[tuple[str, str, int]]:
    """(name, value, line) of the variables a YAML file lists under `env:`-like keys."""
    lines = text.splitlines()
    out: list[tuple[str, str, int]] = []
    section: int | None = None  # indent of the `env:` key we are under
    for i, raw in enumerate(lines):
        m = _ITEM_NAME.match(raw)
        if m:  # `- name: X` then `value: Y` on one of the next lines of the item
            for nxt in lines[i + 1 : i + 4]:
                if _ITEM_NAME.match(nxt):
                    break
                v = _VALUE.match(nxt)
                if v:
                    out.append((m.group(2), _unquote(v.group(1)), i + 1))
                    break
            continue
        s = _SECTION.match(raw)
        if s:
            section = len(s.group(1))
            continue
        if section is None or not raw.strip():
            continue
        indent = len(raw) - len(raw.lstrip())
        if indent <= section and not raw.lstrip().startswith("- "):
            section = None
            continue
        a = _LIST_ASSIGN.match(raw) or _MAP_ENTRY.match(raw)
        if a and a.group(2) and not a.group(2).startswith(("{", "[", "|", ">")):
            out.append((a.group(1), _unquote(a.group(2)), i + 1))
    return out


def json_env(text: str) -> list[tuple[str, str, int]]:
    """(name, value, line) of the variables a JSON text sets, in the order they appear."""
    found: list[tuple[int, str, str]] = []
    for m in _JSON_ASSIGN.finditer(text):
        found.append((m.start(), m.group(1), m.group(2)))
    for m in _JSON_PAIR.finditer(text):
        found.append((m.start(), m.group(1), m.group(2)))
    for m in _JSON_KEY.finditer(text):
        found.append((m.start(), m.group(1), m.group(2) if m.group(2) is not None else m.group(3)))
    found.sort()
    return [(name, value, text.count("\n", 0, at) + 1) for at, name, value in found]


def looks_like_yaml_env(head: str) -> bool:
    """A YAML text with an `env:` list of `- name:`/`value:` items or an `environment:` map."""
    if any(_ITEM_NAME.match(ln) for ln in head.splitlines()) and re.search(
        r"^\s*value:", head, re.M
    ):
        return bool(re.search(r"^\s*-?\s*env:\s*$", head, re.M))
    return any(_SECTION.match(ln) for ln in head.splitlines()) and bool(yaml_env(head))


def looks_like_json_env(head: str) -> bool:
    """A JSON text (object or array) that sets variables: `"Env": [...]` or `"NCCL_X": "…"`."""
    return _JSON_START.match(head) is not None and bool(json_env(head))
