"""The cache folder and how a cache file is written and read back: a module that imports
nothing of ours, so even the code that runs while a dataclass is being made (the method
store, `kb.cache.dataclass_code`) can find its file."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


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
