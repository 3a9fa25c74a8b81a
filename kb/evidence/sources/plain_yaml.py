"""The YAML `accelerate config` writes, read without a YAML library; anything else is left to it.

Importing ruamel.yaml costs more than the rest of reading a small folder (about 20-40 ms of a
warm `kb diagnose`, its emitter and representer included), and the file it is needed for is
nearly always what `accelerate config` dumped: a block mapping of plain scalars, a nested
mapping or two, an empty list. `read_plain` reads exactly that shape and returns what
ruamel's safe loader returns for it; on any line it is not sure of (a comment, a sequence,
a quote inside a quote, a scalar YAML could read two ways: `0,1`, `1e3`, `True`, a date) it
returns None and the caller asks ruamel. tests/kb/evidence/test_light_readers.py holds the
two readers to the same answers.
"""

from __future__ import annotations

from kb.evidence.lazy_pattern import lazy

_ENTRY = lazy(r"( *)([A-Za-z_][A-Za-z0-9_]*):(?: (.+))?")
_INT = lazy(r"-?(?:0|[1-9][0-9]{0,17})")
_FLOAT = lazy(r"-?(?:0|[1-9][0-9]{0,17})\.[0-9]{1,15}")
_WORD = lazy(r"[A-Za-z][A-Za-z0-9_./-]*")
_SINGLE = lazy(r"'([^'\n]*)'")
_DOUBLE = lazy(r'"([^"\\\n]*)"')
_CONSTANTS: dict[str, object] = {"true": True, "false": False, "null": None, "~": None}
# words a YAML 1.2 resolver reads as something else in other spellings (`True`, `NULL`): the
# lower-case ones are in _CONSTANTS, the rest are left to ruamel
_RESOLVED = frozenset({"True", "TRUE", "False", "FALSE", "Null", "NULL"})


class _NotPlain(Exception):
    """A line this reader is not sure of."""


def read_plain(text: str) -> dict[str, object] | None:
    """The mapping `text` holds when it is a block mapping of plain scalars (nested mappings
    allowed), as ruamel's safe loader reads it; None for anything else.

    >>> read_plain("distributed_type: DEEPSPEED\\nnum_processes: 8\\ndownsample: 'no'\\n")
    {'distributed_type': 'DEEPSPEED', 'num_processes': 8, 'downsample': 'no'}
    >>> read_plain("deepspeed_config:\\n  zero_stage: 3\\n  clip: 1.0\\ntpu_env: []\\n")
    {'deepspeed_config': {'zero_stage': 3, 'clip': 1.0}, 'tpu_env': []}
    >>> read_plain("gpu_ids: 0,1\\n") is None  # not sure: ruamel decides
    True
    """
    lines = [(no, line) for no, line in enumerate(text.split("\n")) if line != ""]
    if not lines:
        return None
    try:
        found, rest = _mapping(lines, 0, 0)
    except _NotPlain:
        return None
    return found if rest == len(lines) else None


def _mapping(lines: list[tuple[int, str]], at: int, indent: int) -> tuple[dict[str, object], int]:
    """The mapping whose keys are indented by `indent`, from lines[at]; (it, next line)."""
    out: dict[str, object] = {}
    while at < len(lines):
        _, line = lines[at]
        m = _ENTRY.fullmatch(line)
        if m is None:
            raise _NotPlain(line)
        depth = len(m.group(1))
        if depth < indent:
            break
        if depth > indent:
            raise _NotPlain(line)
        key, value = m.group(2), m.group(3)
        if key in out or key in _CONSTANTS or key in _RESOLVED:
            raise _NotPlain(line)  # a duplicate is ruamel's error to report
        at += 1
        if value is None:  # a nested mapping, or null when nothing deeper follows
            nested = _indent_of(lines, at)
            if nested > indent:
                out[key], at = _mapping(lines, at, nested)
            else:
                out[key] = None
        else:
            out[key] = _scalar(value)
    return out, at


def _indent_of(lines: list[tuple[int, str]], at: int) -> int:
    if at >= len(lines):
        return -1
    line = lines[at][1]
    return len(line) - len(line.lstrip(" "))


def _scalar(value: str) -> object:
    if value in _CONSTANTS:
        return _CONSTANTS[value]
    if value == "[]":
        return []
    if value == "{}":
        return {}
    if _INT.fullmatch(value):
        return int(value)
    if _FLOAT.fullmatch(value):
        return float(value)
    if value not in _RESOLVED and _WORD.fullmatch(value):
        return value
    for quoted in (_SINGLE, _DOUBLE):
        m = quoted.fullmatch(value)
        if m:
            return m.group(1)
    raise _NotPlain(value)
