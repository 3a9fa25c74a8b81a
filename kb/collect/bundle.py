"""Writing a bundle: redacted texts into a `.tar.gz` (what a user attaches to an issue) or a
folder (inside a `kb run` bundle). Only text that went through the redactor is written; the
archive is built in memory member by member, so no unredacted byte touches the disk.

A bundle may be written on a shared login node, into a path another user could have prepared:
nothing here follows a symbolic link it did not create (an output folder or archive that is a
link is refused, a file inside is created with `O_EXCL | O_NOFOLLOW`, the archive's temporary
file has a fresh random name), an existing non-empty folder is refused unless `force`, and
what is written is private: folders 0700, files and the archive 0600."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO

MANIFEST = "collect-manifest.json"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


class OutputRefused(OSError):
    """An output path kb will not write into (a link, another user's folder, a non-empty
    folder without --force); the message says why and what to do."""


def _safe_member(name: str) -> str:
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".", "..")]
    if not parts:
        raise ValueError(f"empty member name: {name!r}")
    return "/".join(parts)


def is_archive(path: Path) -> bool:
    return path.name.endswith((".tar.gz", ".tgz"))


def output_refusal(path: Path, *, force: bool = False) -> str | None:
    """Why `path` must not be written (None: it may be), checked before a long capture."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return (f"{path} is a symbolic link; kb does not write through a link it did not "
                "create: name a new path")  # fmt: skip
    if is_archive(path):
        if not stat.S_ISREG(st.st_mode):
            return f"{path} exists and is not a regular file; name a new archive"
        return None if force else f"{path} exists; name a new path, or add --force to replace it"
    if not stat.S_ISDIR(st.st_mode):
        return f"{path} exists and is not a folder; name a new folder (or a NAME.tar.gz)"
    if st.st_uid != os.getuid():
        return f"{path} belongs to another user; name a folder of your own"
    if not force and os.listdir(path):
        return f"{path} is not empty; name a new folder, or add --force to write into it"
    return None


def claim_folder(folder: Path, *, force: bool = False) -> None:
    """Makes `folder` an output folder: created 0700 when missing; an existing one must be a
    real folder of this user (never a link), empty unless `force`; it is made 0700."""
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        os.mkdir(folder, 0o700)
    except FileExistsError:
        why = output_refusal(folder, force=force)
        if why is None and not stat.S_ISDIR(os.lstat(folder).st_mode):
            why = f"{folder} exists and is not a folder"
        if why:
            raise OutputRefused(why) from None
    fd = os.open(folder, os.O_RDONLY | _DIRECTORY | _NOFOLLOW)
    try:
        os.fchmod(fd, 0o700)
    finally:
        os.close(fd)


def private_dir(path: Path) -> Path:
    """`path` as a real folder (created 0700 when missing); a link or a file there is
    refused, never followed. Its parent must already be a folder kb checked."""
    try:
        os.mkdir(path, 0o700)
        return path
    except FileExistsError:
        pass
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise OutputRefused(f"{path} is a symbolic link or not a folder; kb will not write "
                            "through it")  # fmt: skip
    return path


def open_new(path: Path, *, append: bool = False) -> IO[bytes]:
    """A new private file (0600) at `path`, binary; whatever was there (a file, or a link
    --force let stay) is removed first, never written through."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        pass
    else:
        if stat.S_ISDIR(st.st_mode):
            raise OutputRefused(f"{path} is a folder; kb will not replace it")
        os.unlink(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | (os.O_APPEND if append else 0)
    fd = os.open(path, flags, 0o600)
    os.fchmod(fd, 0o600)  # whatever the umask
    return os.fdopen(fd, "ab" if append else "wb")


def write_new(path: Path, text: str) -> None:
    """`text` (UTF-8) into a new private file at `path` (see `open_new`)."""
    with open_new(path) as fh:
        fh.write(text.encode("utf-8", "surrogateescape"))


def write_archive(path: Path, top: str, files: Mapping[str, str], *, force: bool = False) -> None:
    """A gzip'd tar of `files` (relative name -> text) under one top folder `top`, 0600.
    Written to a temporary file of a fresh random name beside it, then renamed over `path`
    (a rename replaces a link itself, never what it points to)."""
    why = output_refusal(path, force=force)
    if why:
        raise OutputRefused(why)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    now = time.time()
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb") as fh, tarfile.open(fileobj=fh, mode="w:gz") as tar:
            for name, text in files.items():
                data = text.encode("utf-8")
                info = tarfile.TarInfo(f"{_safe_member(top)}/{_safe_member(name)}")
                info.size, info.mtime, info.mode = len(data), now, 0o600
                tar.addfile(info, io.BytesIO(data))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_folder(folder: Path, files: Mapping[str, str], *, force: bool = False) -> None:
    """`files` (relative name -> text) into `folder` (see `claim_folder`): 0700 folders,
    0600 files (it may hold host names and paths its owner did not mean to share yet)."""
    claim_folder(folder, force=force)
    for name, text in files.items():
        parts = _safe_member(name).split("/")
        where = folder
        for part in parts[:-1]:
            where = private_dir(where / part)
        write_new(where / parts[-1], text)
