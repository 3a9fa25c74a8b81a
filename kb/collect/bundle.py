"""Writing a bundle: redacted texts into a `.tar.gz` (what a user attaches to an issue) or a
folder (inside a `kb run` bundle). Only text that went through the redactor is written; the
archive is built in memory member by member, so no unredacted byte touches the disk."""

from __future__ import annotations

import io
import os
import tarfile
import time
from collections.abc import Mapping
from pathlib import Path

MANIFEST = "collect-manifest.json"


def _safe_member(name: str) -> str:
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".", "..")]
    if not parts:
        raise ValueError(f"empty member name: {name!r}")
    return "/".join(parts)


def write_archive(path: Path, top: str, files: Mapping[str, str]) -> None:
    """A gzip'd tar of `files` (relative name -> text) under one top folder `top`."""
    tmp = path.with_name(path.name + ".partial")
    now = time.time()
    with tarfile.open(tmp, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(f"{_safe_member(top)}/{_safe_member(name)}")
            info.size, info.mtime, info.mode = len(data), now, 0o644
            tar.addfile(info, io.BytesIO(data))
    os.replace(tmp, path)


def write_folder(folder: Path, files: Mapping[str, str]) -> None:
    """`files` (relative name -> text) into `folder`, which is created (0700: it may hold
    host names and paths its owner did not mean to share yet)."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    for name, text in files.items():
        target = folder / _safe_member(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
