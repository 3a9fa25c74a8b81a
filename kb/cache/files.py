"""Cache files written whole or not at all, and the oldest pruned: one way for every cache
kb keeps (the knowledge-base snapshot, the prepared scan patterns). A read-only or racing
cache only ever costs speed, never an error."""

from __future__ import annotations

import os
from pathlib import Path


def write_whole(target: Path, data: bytes) -> bool:
    """Write `data` to `target` through a temporary file renamed over it; False when the
    cache folder cannot be written."""
    import tempfile  # only to write: a warm run reads its caches (the import was ~2 ms)

    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True


def prune(folder: Path, pattern: str, keep: int) -> None:
    """Keep the `keep` most recently written files matching `pattern` in `folder`."""
    try:
        files = sorted(folder.glob(pattern), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in files[keep:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass  # another process pruning at the same time, or a read-only cache
