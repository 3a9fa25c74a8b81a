"""Python regexes compiled once per machine, not once per process.

A warm `kb diagnose` compiled a few hundred catalogue patterns with `re.compile` on every
call (large alternations: about half a second of CPU, more than all the matching). What
`re.compile` spends its time on is pure Python: parsing the pattern and emitting the
engine's code. The result is a list of integers handed to `_sre.compile`, which builds the
pattern object in C. This module keeps those arguments on disk, keyed by the interpreter
(its version and `_sre.MAGIC`), and builds the same pattern object from them: the object is
equal to `re.compile(pattern, flags)` (same pattern, flags and code; `Pattern.__eq__`
compares exactly these), so matching cannot change.

The store is one file written whole (temporary file renamed over it) when the process
exits having compiled something new; it is read only when its header carries this
interpreter's key and a hash of its body, so a truncated, corrupt or foreign file is
ignored. Any surprise (an interpreter whose `re` internals differ) falls back to
`re.compile`. Each pattern's arguments are kept in the body as their own marshal bytes,
decoded when the pattern is first asked for: the store holds every pattern any command
compiled (over 1,000 once `kb test` ran: 4 MB, ~700,000 integers), and decoding all of it
cost a warm `kb diagnose`, which needs a few hundred, ~5 ms.
"""

from __future__ import annotations

import atexit
import hashlib
import marshal
import re
import sys
from pathlib import Path
from typing import Any

MAGIC = b"kb-regex-cache/2\n"  # 2: each entry its own marshal bytes
MAX_ENTRIES = 5000  # past this the store starts again (a catalogue holds ~1,000 patterns, ~4 MB)

try:  # the pieces `re.compile` itself uses (CPython 3.11+: re._parser, re._compiler)
    import _sre
    from re import _compiler, _parser  # type: ignore[attr-defined]

    _SUPPORTED = hasattr(_compiler, "_code") and hasattr(_parser, "parse")
except ImportError:  # pragma: no cover - another interpreter
    _SUPPORTED = False

Args = tuple[int, list[int], int, dict[str, int], tuple[Any, ...]]

_known: dict[tuple[str, int], bytes] | None = None  # the store, once read: marshal'd Args
_new: dict[tuple[str, int], Args] = {}  # compiled by this process, to be written
_built: dict[tuple[str, int], re.Pattern[str]] = {}  # this process's objects


def _interpreter() -> bytes:
    tag = (sys.version, getattr(_sre, "MAGIC", 0), sys.implementation.cache_tag)
    return repr(tag).encode()


def _path() -> Path:
    from dsl.cache_place import cache_dir

    key = hashlib.sha256(_interpreter()).hexdigest()[:16]
    return cache_dir() / f"regex-{key}.marshal"


def _read() -> dict[tuple[str, int], bytes]:
    from dsl.cache_files import read_store

    return read_store(_path(), MAGIC + _interpreter() + b"\n")


def _args(pattern: str, flags: int) -> Args:
    """What `re._compiler.compile` hands `_sre.compile`, computed the way it does."""
    parsed = _parser.parse(pattern, flags)
    code = _compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[Any] = [None] * parsed.state.groups
    for name, i in groupindex.items():
        indexgroup[i] = name
    return (flags | parsed.state.flags, [int(c) for c in code], parsed.state.groups - 1, groupindex,
            tuple(indexgroup))  # fmt: skip


def _build(pattern: str, args: Args) -> re.Pattern[str]:
    final, code, groups, groupindex, indexgroup = args
    built: re.Pattern[str] = _sre.compile(pattern, final, code, groups, groupindex, indexgroup)
    return built


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)` for a str pattern; raises `re.error` as it does."""
    global _known
    flags = int(flags)
    key = (pattern, flags)
    found = _built.get(key)
    if found is not None:
        return found
    if not _SUPPORTED or not isinstance(pattern, str) or flags & re.DEBUG:
        return re.compile(pattern, flags)
    if _known is None:
        _known = _read()
    args = _stored(_known.get(key))
    try:
        if args is None:
            args = _args(pattern, flags)
            built = _build(pattern, args)
            _new[key] = args
            if len(_new) == 1:
                atexit.register(flush)
        else:
            built = _build(pattern, args)
    except re.error:
        raise  # the pattern's own error, as re.compile raises it
    except Exception:  # internals not as expected: the ordinary way
        return re.compile(pattern, flags)
    _built[key] = built
    return built


def _stored(blob: bytes | None) -> Args | None:
    """A store entry's arguments (None: none, or not what `_args` writes)."""
    if not isinstance(blob, bytes):
        return None
    try:
        args = marshal.loads(blob)
    except (ValueError, EOFError, TypeError):
        return None
    return args if isinstance(args, tuple) and len(args) == 5 else None


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


def _reset_for_tests() -> None:
    """Forget this process's state (tests point KB_CACHE_DIR elsewhere between cases)."""
    global _known
    _known = None
    _new.clear()
    _built.clear()


__all__ = ["compile", "flush"]
