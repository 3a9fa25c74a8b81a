"""Turns what the user handed over (folder, archive, single file, stdin) into readable files.

Every problem is recorded as a `SkippedFile` with a plain reason instead of raising: symlink
loops, links leaving the folder, FIFOs and devices, unreadable files.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb.evidence.bounded import BoundedReader, ByteStream, InflateBudget
from kb.evidence.facts import SkippedFile
from kb.evidence.lazy_pattern import lazy
from kb.evidence.limits import Limits

STDIN = "-"
ARCHIVE_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".zip")


def is_archive(name: str) -> bool:
    """
    >>> is_archive("logs.TGZ"), is_archive("a.tar.gz"), is_archive("x.log.gz")
    (True, True, False)
    """
    return name.lower().endswith(ARCHIVE_SUFFIXES)


def logical_name(name: str) -> str:
    """The name a file is classified by: `rank0.log.gz` reads as `rank0.log`."""
    return name[:-3] if name.lower().endswith(".gz") and not is_archive(name) else name


def _open_binary(path: str) -> ByteStream:
    """Opens a file on disk (a seam for tests that simulate unreadable files)."""
    return open(path, "rb")


@dataclass
class InputFile:
    """One readable file: on disk (`fs_path`) or an archive member (`opener`).

    `display` is what users see: a path relative to the evidence root, archive members as
    `logs.tar.gz!/rank0/x.log`. Archive members can only be opened while their archive is being
    iterated (tar is read as a stream).
    """

    display: str
    size: int = 0
    fs_path: str | None = None
    gz: bool = False
    opener: Callable[[], ByteStream] | None = field(default=None, repr=False, compare=False)
    budget: InflateBudget | None = field(default=None, repr=False, compare=False)
    archive: bool = False  # stdin carrying a tar or zip (files on disk are known by name)
    kind: str | None = None  # known before sniffing: an issue body's parts (issue_tasks.py)

    @property
    def name(self) -> str:
        return logical_name(self.display.rsplit("/", 1)[-1])

    def open(self) -> ByteStream:
        """A binary stream of the file's (decompressed) content; raises OSError if unreadable."""
        if self.opener is not None:
            raw = self.opener()
        elif self.fs_path is not None:
            raw = _open_binary(self.fs_path)
        else:  # pragma: no cover - constructed wrongly
            raise OSError("nothing to open")
        if not self.gz:
            return raw
        budget = self.budget or InflateBudget(Limits())
        return _bounded_decompress(raw, _gunzip, budget)


def _gunzip(fileobj: Any) -> ByteStream:
    return gzip.GzipFile(fileobj=fileobj, mode="rb")


def _bounded_decompress(
    raw: ByteStream, factory: Callable[..., ByteStream], budget: InflateBudget
) -> BoundedReader:
    counter = _Counting(raw)
    return BoundedReader(factory(fileobj=counter), budget, lambda: counter.count)


class _Counting:
    """Counts compressed bytes consumed, for the inflate ratio."""

    def __init__(self, raw: ByteStream) -> None:
        self._raw = raw
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size)
        self.count += len(data)
        return data

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        self._raw.close()

    def __getattr__(self, name: str) -> object:
        return getattr(self._raw, name)


def decompressor_for(head: bytes) -> Callable[..., ByteStream] | None:
    """The stream decompressor a magic number calls for (used for tar archives and stdin)."""
    if head.startswith(b"\x1f\x8b"):
        return _gunzip
    if head.startswith(b"BZh"):
        return lambda fileobj: bz2.BZ2File(fileobj)
    if head.startswith(b"\xfd7zXZ\x00"):
        return lambda fileobj: lzma.LZMAFile(fileobj)
    return None


_UNSHOWABLE = lazy(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def shown_name(name: str) -> str:
    """A file name as it may be shown and written: control characters (ANSI escapes, a newline
    that would forge a report line) and undecodable bytes become visible `\\xNN` escapes, so
    the terminal shows only what it should and JSON stays valid UTF-8. The real name is
    kept for opening the file.

    >>> shown_name("a\\x1b]0;pwned\\x07b\\nc.log")
    'a\\\\x1b]0;pwned\\\\x07b\\\\x0ac.log'
    >>> shown_name("rank\\udcff.log")
    'rank\\\\xff.log'
    """

    def escape(m: re.Match[str]) -> str:
        code = ord(m.group(0))
        return f"\\x{code - 0xDC00 if 0xDC80 <= code <= 0xDCFF else code:02x}"

    return _UNSHOWABLE.sub(escape, name)


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def walk(root: str | Path, skipped: list[SkippedFile]) -> Iterator[InputFile]:
    """Files under a folder (recursive, sorted), or the file itself; archives are not opened here."""
    root_s = str(root)
    if not os.path.isdir(root_s):
        reason = _special_reason(root_s, follow=True)
        if reason:
            skipped.append(SkippedFile(path=os.path.basename(root_s), reason=reason))
            return
        yield _disk_file(root_s, shown_name(os.path.basename(root_s)))
        return
    real_root = os.path.realpath(root_s)
    try:  # the folder may be gone since it was seen: said like any file removed mid-read
        root_key = _key(real_root)
    except OSError as exc:
        reason = f"unreadable: {exc.strerror or exc}"
        skipped.append(SkippedFile(path=os.path.basename(root_s), reason=reason))
        return
    yield from _walk_dir(real_root, real_root, "", {root_key}, skipped)


def _key(path: str) -> tuple[int, int]:
    st = os.stat(path)
    return (st.st_dev, st.st_ino)


def _disk_file(path: str, display: str) -> InputFile:
    try:
        size = os.stat(path).st_size
    except OSError:
        size = 0
    return InputFile(display=display, size=size, fs_path=path, gz=_is_gz(display))


def _is_gz(name: str) -> bool:
    return name.lower().endswith(".gz") and not is_archive(name)


def _special_reason(path: str, follow: bool = False) -> str | None:
    """Why a path is not read as a file; `follow` for a path the user named (a link to a FIFO
    there would otherwise block the reader forever)."""
    try:
        mode = (os.stat if follow else os.lstat)(path).st_mode
    except OSError as exc:
        return f"unreadable: {exc.strerror or exc}"
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    for test, what in (
        (stat.S_ISFIFO, "FIFO"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
    ):
        if test(mode):
            return f"not a regular file ({what})"
    return None


# A real-incident fixture keeps where it came from beside its evidence (see kb/incidents.py)
INCIDENT_FILE = "incident.yaml"


# folders nested deeper are skipped, said once: no real log folder is this deep, and the
# walk must not grow with a stranger's nesting
MAX_FOLDER_DEPTH = 64


def _entries(path: str, rel: str, skipped: list[SkippedFile]) -> list[os.DirEntry[str]]:
    try:
        return sorted(os.scandir(path), key=lambda e: e.name)
    except OSError as exc:
        skipped.append(SkippedFile(path=rel or ".", reason=f"unreadable folder: {exc.strerror}"))
        return []


def _walk_dir(
    root: str, path: str, rel: str, ancestors: set[tuple[int, int]], skipped: list[SkippedFile]
) -> Iterator[InputFile]:
    """Files depth-first in name order, walked with a stack of its own (not the call stack:
    a folder nested thousands deep overflowed it) and at most MAX_FOLDER_DEPTH deep."""
    stack = [(iter(_entries(path, rel, skipped)), rel, ancestors)]
    while stack:
        entries, here, seen = stack[-1]
        entry = next(entries, None)
        if entry is None:
            stack.pop()
            continue
        rel_e = f"{here}/{shown_name(entry.name)}" if here else shown_name(entry.name)
        try:
            if entry.is_symlink():
                why = _symlink_reason(root, entry.path, seen)
                skipped.append(SkippedFile(path=rel_e, reason=why))
                continue
            if entry.is_dir(follow_symlinks=False):
                if len(stack) >= MAX_FOLDER_DEPTH:
                    deep = f"folder nested deeper than {MAX_FOLDER_DEPTH} levels (not read)"
                    skipped.append(SkippedFile(path=rel_e, reason=deep))
                    continue
                key = (entry.stat(follow_symlinks=False).st_dev, entry.inode())
                stack.append((iter(_entries(entry.path, rel_e, skipped)), rel_e, seen | {key}))
                continue
        except OSError as exc:
            skipped.append(SkippedFile(path=rel_e, reason=f"unreadable: {exc.strerror}"))
            continue
        reason = _special_reason(entry.path)
        if not here and entry.name == INCIDENT_FILE:
            reason = "incident metadata of a real-incident fixture, not evidence"
        if reason:
            skipped.append(SkippedFile(path=rel_e, reason=reason))
            continue
        yield _disk_file(entry.path, rel_e)


def _symlink_reason(root: str, link: str, ancestors: set[tuple[int, int]]) -> str:
    """Why a symlink is not followed. Links inside the folder point at files read anyway."""
    target = os.path.realpath(link)
    if not os.path.exists(target):
        return "dangling symlink"
    if not _within(target, root):
        return "symlink points outside the evidence folder (not followed)"
    if os.path.isdir(target) and _key(target) in ancestors:
        return "symlink loop (points to a parent folder)"
    return "symlink to a path already inside the evidence folder (read there)"


__all__ = [
    "STDIN",
    "InputFile",
    "decompressor_for",
    "is_archive",
    "logical_name",
    "walk",
]
