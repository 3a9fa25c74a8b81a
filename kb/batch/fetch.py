"""A remote job copied to a local folder within bounds, so the evidence reader's guarantees
(inside the root, bounded inflation) apply to it as to any local folder.

Only names the listing gives are written, each made relative and stripped of `..`; the copy
stops at `MAX_FILES` files or `MAX_BYTES` bytes, and what was left out is reported.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field

MAX_FILES = 10_000
MAX_BYTES = 2 << 30  # the evidence reader's whole-archive budget
CHUNK = 1 << 20


@dataclass
class Fetched:
    path: str = ""  # the local copy: a folder, or the archive file
    skipped: list[str] = field(default_factory=list)
    copied: int = 0  # files copied in full so far
    current: str = ""  # the remote file being copied, while one is

    def so_far(self) -> str:
        """Where a copy that was stopped had got to, for the job's row."""
        where = f" while copying {self.current}" if self.current else ""
        return f"{self.copied} file(s) copied{where}"


def _safe_relative(name: str, base: str) -> str | None:
    rel = posixpath.relpath(posixpath.normpath(name), posixpath.normpath(base))
    if rel.startswith("..") or posixpath.isabs(rel):
        return None
    parts = [p for p in rel.split("/") if p not in ("", ".", "..")]
    return "/".join(parts) or None


def _copy(fs: object, src: str, dst: str, budget: list[int]) -> bool:
    """Copy one file, counting bytes against the budget; False when the budget ran out."""
    with fs.open(src, "rb") as source, open(dst, "wb") as target:  # type: ignore[attr-defined]
        while True:
            chunk = source.read(CHUNK)
            if not chunk:
                return True
            if len(chunk) > budget[0]:
                target.write(chunk[: budget[0]])
                budget[0] = 0
                return False
            target.write(chunk)
            budget[0] -= len(chunk)


def fetch(url: str, into: str, result: Fetched | None = None) -> Fetched:
    """Copy the job at `url` into the folder `into`. `result`, when given, is filled as the
    copy goes, so a caller whose copy is stopped part-way (the job's time limit) still knows
    the local path and what it holds."""
    import fsspec

    result = result if result is not None else Fetched()

    fs, path = fsspec.core.url_to_fs(url)
    budget = [MAX_BYTES]
    name = path.rstrip("/").rsplit("/", 1)[-1]
    if name in ("", ".", ".."):
        name = "job"  # the copy's own folder stays inside `into`
    if not fs.exists(path):
        raise FileNotFoundError(f"no such job: {url}")
    if fs.isfile(path):
        result.path, result.current = os.path.join(into, name), path
        if not _copy(fs, path, result.path, budget):
            result.skipped.append(f"{url}: cut at {MAX_BYTES} bytes")
        result.current = ""
        result.copied = 1
        return result
    root = os.path.join(into, name)
    os.makedirs(root, exist_ok=True)
    result.path = root
    files = sorted(fs.find(path))
    if len(files) > MAX_FILES:
        result.skipped.append(f"{len(files) - MAX_FILES} file(s) past {MAX_FILES} not copied")
        files = files[:MAX_FILES]
    for remote in files:
        rel = _safe_relative(remote, path)
        if rel is None:
            result.skipped.append(f"{remote}: outside the job, not copied")
            continue
        local = os.path.join(root, *rel.split("/"))
        os.makedirs(os.path.dirname(local), exist_ok=True)
        result.current = remote
        if not _copy(fs, remote, local, budget):
            result.skipped.append(f"{remote}: the job's copy budget ({MAX_BYTES} bytes) ran out")
            break
        result.copied += 1
    result.current = ""
    return result
