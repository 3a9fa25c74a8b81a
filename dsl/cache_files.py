"""The cache folder and how a cache file is written and read back: a module that imports
nothing of ours, so even the code that runs while a dataclass is being made (the method
store, `kb.cache.dataclass_code`) can find its file."""

from __future__ import annotations

import hashlib
import marshal
import os
from pathlib import Path
from typing import Any


def cache_dir() -> Path:
    base = os.environ.get("KB_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "kb", "compiled"
    )
    return Path(base)


def write_cache_file(target: Path, data: bytes) -> None:
    """Write one cache entry whole (a temporary file renamed over it), or not at all: a
    read-only cache only costs speed."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, target)
    except OSError:
        pass


def sealed_body(blob: bytes, head: bytes) -> memoryview | None:
    """The body of a cache file laid out as `head`, the SHA-256 of the body in hex, a
    newline, the body; None when the head or the hash differ (a cut, corrupt or foreign
    file). A view, not a copy: slicing then splitting a snapshot of a few MB copied it twice,
    ~7 ms a file on a warm `kb diagnose` (the allocations' page faults, not the copying)."""
    if not blob.startswith(head):
        return None
    end = blob.find(b"\n", len(head))
    if end < 0:
        return None
    body = memoryview(blob)[end + 1 :]
    if hashlib.sha256(body).hexdigest().encode() != blob[len(head) : end]:
        return None
    return body


def read_store(path: Path, head: bytes) -> dict[Any, bytes]:
    """A store `merge_store` wrote (a marshal'd dict whose values stay marshal bytes until
    asked for); {} when it is missing, cut, corrupt or another interpreter's."""
    try:
        blob = path.read_bytes()
    except OSError:
        return {}
    body = sealed_body(blob, head)
    if body is None:
        return {}
    try:
        found = marshal.loads(body)
    except (ValueError, EOFError, TypeError):
        return {}
    return found if isinstance(found, dict) else {}


def merge_store(path: Path, head: bytes, new: dict[Any, Any], max_entries: int) -> dict[Any, bytes]:
    """`new` (each value marshalled on its own) merged into the store at `path` and written
    whole (a race with another process, or a read-only cache, only costs speed); past
    `max_entries` the store starts again. Returns what the file now holds."""
    merged = read_store(path, head)
    if len(merged) + len(new) > max_entries:
        merged = {}
    try:
        merged.update({key: marshal.dumps(value) for key, value in new.items()})
        body = marshal.dumps(merged)
    except ValueError:
        return merged
    write_cache_file(path, head + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
    return merged
