"""Where compiled things are cached, and the compiler version their keys carry: a module
that imports nothing heavy, so a warm `kb diagnose` finds its snapshot without pydantic."""

from __future__ import annotations

import os
from pathlib import Path

from dsl.catalogue.template import TEMPLATE_VERSION

COMPILER_VERSION = f"5.{TEMPLATE_VERSION}"  # a template change recompiles every case


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
