"""Finding the jobs of a batch: each folder or archive directly inside a folder of jobs,
local or behind an fsspec URL (`s3://bucket/jobs/`, `gs://…`, `file://…`, `memory://…`)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from kb.evidence.inputs import is_archive

MAX_JOBS = 100_000  # a listing this long is a mistake, not a fleet's day


@dataclass(frozen=True)
class JobRef:
    name: str  # what the result row calls it: the folder or archive name
    location: str  # a local path or an fsspec URL
    remote: bool = False


def is_url(text: str) -> bool:
    return "://" in text and not os.path.exists(text)


def _local_jobs(root: str, skipped: list[str]) -> list[JobRef]:
    jobs = []
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError as exc:
        skipped.append(f"{root}: cannot list: {exc.strerror}")
        return []
    for entry in entries:
        if entry.is_symlink():
            skipped.append(f"{entry.path}: a link, not followed")
        elif entry.is_dir(follow_symlinks=False) or (
            entry.is_file(follow_symlinks=False) and is_archive(entry.name)
        ):
            jobs.append(JobRef(name=entry.name, location=entry.path))
        else:
            skipped.append(f"{entry.path}: neither a job folder nor an archive")
    return jobs


def _remote_jobs(url: str, skipped: list[str]) -> list[JobRef]:
    import fsspec

    fs, path = fsspec.core.url_to_fs(url)
    local = "file" in (fs.protocol if isinstance(fs.protocol, (tuple, list)) else [fs.protocol])
    jobs = []
    for info in sorted(fs.ls(path, detail=True), key=lambda i: str(i["name"])):
        name = str(info["name"]).rstrip("/").rsplit("/", 1)[-1]
        full = fs.unstrip_protocol(str(info["name"]))
        if info.get("type") == "directory" or is_archive(name):
            jobs.append(JobRef(name=name, location=full, remote=not local))
        else:
            skipped.append(f"{full}: neither a job folder nor an archive")
    return jobs


def find_jobs(sources: list[str]) -> tuple[list[JobRef], list[str]]:
    """The jobs under each source, and what was skipped (with why)."""
    jobs: list[JobRef] = []
    skipped: list[str] = []
    for source in sources:
        if is_url(source):
            try:
                jobs.extend(_remote_jobs(source, skipped))
            except (OSError, ValueError, ImportError) as exc:
                skipped.append(f"{source}: cannot list: {type(exc).__name__}: {exc}")
        elif os.path.isdir(source):
            jobs.extend(_local_jobs(source, skipped))
        else:
            skipped.append(f"{source}: no such folder")
    if len(jobs) > MAX_JOBS:
        skipped.append(f"{len(jobs) - MAX_JOBS} job(s) past the first {MAX_JOBS:,} left out")
        jobs = jobs[:MAX_JOBS]
    return jobs, skipped
