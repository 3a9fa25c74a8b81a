"""What a pattern set needs before it is compiled, kept on disk once it has passed its checks.

Checking a pattern (no backtracking construct, no buffer anchor, no empty match) and
rewriting it for the engine (`$` before CRLF, `.*$` after a trailing repetition) is pure
Python, about 15 ms per 100 patterns, and a warm `kb diagnose` builds the same sets on every
call. The record is keyed by the patterns, the engine and the source of the modules that
decide the answer (so an edit to the syntax rules re-checks everything); for an RE2 set it
also holds each pattern's factor (`kb.scan.literals`: the runs one of which every match holds,
read from a parse that costs more than the rest together) and, for a pattern of several
alternatives, each alternative's (`kb.scan.narrowed`). It is written whole (temporary file
renamed over it) as a header (the key and a SHA-256 of the body) and a `marshal` body, and
read only when the header matches: a record that is truncated, corrupt, foreign or of the
wrong shape is ignored, and the set is then checked again, never trusted. (It was JSON,
checked item by item on every read: decoding and checking the two records of a warm
`kb diagnose`, 1.6 MB, cost ~20 ms; the body's hash now stands for those checks, as for the
knowledge snapshot and the regex store. A pattern's parts are still checked when first
used; a bad one is not used.)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import marshal
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from dsl.cache_files import sealed_body
from kb.cache.files import prune, write_whole

RECORD_VERSION = 5  # 2: alternatives; 3: factors (RE2 sets); 4: parts; 5: marshal, hashed
KEEP = 128  # records kept on disk (each a few KB); the least recently used go
SUFFIX = ".prep"
MAGIC = b"kb-prepared-patterns/5\n"


@lru_cache(maxsize=1)
def code_version() -> str:
    """Hash of the modules whose rules a record stores the outcome of."""
    here = Path(__file__).resolve().parent
    h = hashlib.sha256(str(RECORD_VERSION).encode())
    names = ("syntax.py", "regexes.py", "engine.py", "prepared.py", "literals.py", "_re2.py",
             "narrowed.py")  # fmt: skip
    for name in names:
        try:
            h.update((here / name).read_bytes())
        except OSError:
            h.update(b"<missing>")
    return h.hexdigest()[:16]


def cache_dir() -> Path | None:
    """Beside the scan databases (`KB_CACHE_DIR`/scan); None when KB_SCAN_CACHE=0."""
    if os.environ.get("KB_SCAN_CACHE", "1") == "0":
        return None
    root = os.environ.get("KB_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "kb"
    )
    return Path(root) / "scan"


def record_key(patterns: tuple[tuple[int, str, bool], ...], engine: str) -> str:
    blob = json.dumps([code_version(), engine, patterns], ensure_ascii=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def _path(key: str) -> Path | None:
    folder = cache_dir()
    return folder / f"{key}{SUFFIX}" if folder is not None else None


Factors = list[Any]  # per pattern, a `kb.scan.literals.Requirement` or None
PartsList = list[Any]  # per pattern, its `kb.scan.narrowed.Parts` or None


def load(
    key: str, count: int
) -> tuple[list[str], list[int], list[list[str]], Factors | None, PartsList | None] | None:
    """(engine expressions, indexes to re-check on the line, each pattern's alternatives as
    engine expressions, each expression's factor or None when none was stored, each
    pattern's parts (`kb.scan.narrowed`) or None when none were stored) for `count`
    patterns, or None when there is no usable record."""
    path = _path(key)
    if path is None:
        return None
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    body = sealed_body(blob, MAGIC + key.encode() + b"\n")
    if body is None:
        return None
    try:
        record: Any = marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return None
    if not (isinstance(record, tuple) and len(record) == 5):
        return None
    exprs, verify, alts, factors, parts = record
    if not (isinstance(exprs, list) and len(exprs) == count and isinstance(verify, list)):
        return None
    if not (isinstance(alts, list) and len(alts) == count):
        return None
    if any(
        v is not None and not (isinstance(v, list) and len(v) == count) for v in (factors, parts)
    ):
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # "recently used" for pruning
    return exprs, verify, alts, factors, parts


def store(
    key: str,
    exprs: list[str],
    verify: list[int],
    alts: list[list[str]],
    factors: Factors | None = None,
    parts: PartsList | None = None,
) -> None:
    """Write the record whole, or not at all: a read-only cache only costs speed."""
    path = _path(key)
    if path is None:
        return
    try:
        body = marshal.dumps((exprs, verify, alts, factors, parts))
    except ValueError:  # something marshal cannot write: no record, the set still works
        return
    digest = hashlib.sha256(body).hexdigest().encode()
    if write_whole(path, MAGIC + key.encode() + b"\n" + digest + b"\n" + body):
        prune(path.parent, f"*{SUFFIX}", KEEP)
