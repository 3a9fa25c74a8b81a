"""The methods `dataclasses` writes for each class, compiled once per machine.

`@dataclass` writes `__init__`, `__repr__`, `__eq__` (and more) of every class as Python
source and hands it to `exec`, which compiles it: about 180 compilations when a warm
`kb diagnose` imports its modules, ~20 ms of CPU (a fifth of its imports) for the same
code objects on every call. `install()` gives the `dataclasses` module its own `exec`
(a module global is found before the builtin), which runs a code object compiled once and
kept here, keyed by the source text and the interpreter. `exec(text, ...)` compiles `text`
as `compile(text, "<string>", "exec")` with no `__future__` flag (`dataclasses` uses none),
so the code, and the class, are what the builtin would have made.

The store is one marshal file beside the compile cache, written whole when the process
exits having compiled something new, read only when its header carries this interpreter
and a hash of its body (a truncated or foreign file is ignored); each entry stays marshal
bytes until asked for. Any surprise falls back to the builtin `exec`.
"""

from __future__ import annotations

import atexit
import builtins
import hashlib
import marshal
import sys
from pathlib import Path
from types import CodeType
from typing import Any

MAGIC = b"kb-dataclass-code/1\n"
MAX_ENTRIES = 2000  # past this the store starts again (the whole of kb makes ~400)

_known: dict[str, bytes] | None = None  # the store, once read: source -> marshal'd code
_new: dict[str, CodeType] = {}  # compiled by this process, to be written


def _interpreter() -> bytes:
    return repr((sys.version, sys.implementation.cache_tag)).encode()


def _path() -> Path:
    from dsl.cache_files import cache_dir

    key = hashlib.sha256(_interpreter()).hexdigest()[:16]
    return cache_dir() / f"dataclass-code-{key}.marshal"


def _read() -> dict[str, bytes]:
    from dsl.cache_files import read_store

    return read_store(_path(), MAGIC + _interpreter() + b"\n")


def _code(text: str) -> CodeType:
    """`text` compiled as `exec` compiles it, from the store when it is there."""
    global _known
    if _known is None:
        _known = {}  # a dataclass made while the store is read compiles the ordinary way
        _known = _read()
    stored = _known.get(text)
    if isinstance(stored, bytes):
        try:
            code = marshal.loads(stored)
        except (ValueError, EOFError, TypeError):
            code = None
        if isinstance(code, CodeType):
            return code
    code = compile(text, "<string>", "exec", dont_inherit=True)
    if not _new:
        atexit.register(flush)
    _new[text] = code
    return code


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    """The builtin `exec`, with a source text's code taken from the store."""
    if isinstance(source, str):
        source = _code(source)
    builtins.exec(source, globals, locals)


def install() -> None:
    """From now on, `dataclasses` compiles each method text once per machine."""
    import dataclasses

    vars(dataclasses).setdefault("exec", _exec)


def flush() -> None:
    """Write what this process compiled, merged with the store (a read-only cache, or a
    race with another process, only costs speed)."""
    if not _new:
        return
    from dsl.cache_files import merge_store

    new = dict(_new)
    _new.clear()
    global _known
    _known = merge_store(_path(), MAGIC + _interpreter() + b"\n", new, MAX_ENTRIES)


__all__ = ["flush", "install"]
