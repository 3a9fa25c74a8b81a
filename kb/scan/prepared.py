"""What a pattern set needs before it is compiled, kept on disk once it has passed its checks.

Checking a pattern (no backtracking construct, no buffer anchor, no empty match) and
rewriting it for the engine (`$` before CRLF, `.*$` after a trailing repetition) is pure
Python, about 15 ms per 100 patterns, and a warm `kb diagnose` builds the same sets on every
call. The record is keyed by the patterns, the engine and the source of the modules that
decide the answer (so an edit to the syntax rules re-checks everything); for an RE2 set it
also holds each pattern's factor (`kb.scan.literals`: the runs one of which every match holds,
read from a parse that costs more than the rest together) and, for a pattern of several
alternatives, each alternative's (`kb.scan.narrowed`); it is plain JSON,
written whole (temporary file renamed over it), and a record that is unreadable, foreign or
of the wrong shape is ignored: the set is then checked again, never trusted. (A pattern's
parts are checked when first used, as most never are; a bad one is not used.)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from kb.cache.files import prune, write_whole
from kb.scan.literals import well_formed

RECORD_VERSION = 4  # 2: each pattern's engine alternatives; 3: factors (RE2 sets); 4: parts
KEEP = 128  # records kept on disk (each a few KB); the least recently used go
SUFFIX = ".prep.json"


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
        doc: Any = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("key") != key:
        return None
    exprs, verify, alts = doc.get("exprs"), doc.get("verify"), doc.get("alts")
    if not (isinstance(exprs, list) and len(exprs) == count and isinstance(verify, list)):
        return None
    if not all(isinstance(e, str) and e for e in exprs):
        return None
    if not (isinstance(alts, list) and len(alts) == count):
        return None
    if not all(
        isinstance(g, list) and g and all(isinstance(a, str) and a for a in g) for g in alts
    ):
        return None
    if not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < count for i in verify):
        return None
    factors = doc.get("factors")
    if factors is not None and not (
        isinstance(factors, list)
        and len(factors) == count
        and all(f is None or well_formed(f) for f in factors)
    ):
        return None
    parts = doc.get("parts")  # each checked where it is used (`kb.scan._re2`): most never are
    if parts is not None and not (isinstance(parts, list) and len(parts) == count):
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
    record = {"key": key, "exprs": exprs, "verify": verify, "alts": alts, "factors": factors,
              "parts": parts}  # fmt: skip
    data = json.dumps(record).encode()
    if write_whole(path, data):
        prune(path.parent, f"*{SUFFIX}", KEEP)
