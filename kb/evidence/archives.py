"""Reads tar and zip archives in place, member by member, refusing members that could escape.

Nothing is extracted to disk. Unsafe members (path traversal, absolute paths, links, devices)
are reported as "unsafe archive member"; inflation is bounded by `InflateBudget`, and the
entries looked at by `MAX_MEMBERS` (each costs the reader a file's bookkeeping, however
small: 100,000 one-line members once took 1.5 GB), with a note when the cap is reached.
"""

from __future__ import annotations

import stat
import tarfile
import zipfile
from collections.abc import Iterator
from typing import Any, cast

from kb.evidence.bounded import (
    BoundedReader,
    ByteStream,
    InflateBudget,
    InflateLimitError,
    PrefixedStream,
)
from kb.evidence.facts import SkippedFile
from kb.evidence.failures import ARCHIVE_ERRORS
from kb.evidence.inputs import (
    InputFile,
    _Counting,
    decompressor_for,
    is_archive,
    logical_name,
    shown_name,
)

MAX_MEMBERS = 10_000  # entries of one archive looked at (files, folders, refused members)


def _capped(display: str, seen: int, skipped: list[SkippedFile]) -> bool:
    """True (and a note for the report and `kb batch`'s row) once an archive has had its
    `MAX_MEMBERS` entries."""
    if seen <= MAX_MEMBERS:
        return False
    skipped.append(
        SkippedFile(
            path=display,
            reason=f"member cap reached: only the first {MAX_MEMBERS:,} entries read; "
            "rest of the archive not read",
        )
    )
    return True


def member_problem(name: str) -> str | None:
    """Why a member name is unsafe, or None.

    >>> member_problem("../etc/passwd"), member_problem("/abs"), member_problem("a/./b.log")
    ('path traversal (..)', 'absolute path', None)
    >>> member_problem("C:\\\\x")
    'absolute path'
    """
    norm = name.replace("\\", "/")
    if norm.startswith("/") or (len(norm) > 1 and norm[1] == ":"):
        return "absolute path"
    if ".." in norm.split("/"):
        return "path traversal (..)"
    return None


def archive_format(name: str, head: bytes) -> str | None:
    """'zip', 'tar' or None, from the magic number first and the name second."""
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return "zip"
    if head[257:262] == b"ustar" or (decompressor_for(head) is not None and is_archive(name)):
        return "tar"
    if is_archive(name):
        return "zip" if name.lower().endswith(".zip") else "tar"
    return None


def iter_archive(
    src: InputFile, budget: InflateBudget, skipped: list[SkippedFile]
) -> Iterator[InputFile]:
    """Members of an archive as InputFiles; each must be read before asking for the next."""
    try:
        raw = src.open()
    except OSError as exc:
        skipped.append(SkippedFile(path=src.display, reason=f"unreadable: {exc.strerror or exc}"))
        return
    try:
        head = raw.read(600)
        fmt = archive_format(src.display, head)
        if fmt == "zip":
            if src.fs_path is None:  # stdin spool: seekable
                cast(Any, raw).seek(0)
                yield from _iter_zip(src.display, raw, budget, skipped)
            else:
                raw.close()
                with open(src.fs_path, "rb") as fh:
                    yield from _iter_zip(src.display, fh, budget, skipped)
        else:
            yield from _iter_tar(src.display, PrefixedStream(head, raw), budget, skipped)
    except InflateLimitError as exc:
        skipped.append(SkippedFile(path=src.display, reason=f"{exc}; rest of the archive not read"))
    except ARCHIVE_ERRORS as exc:
        skipped.append(SkippedFile(path=src.display, reason=f"corrupt or truncated archive: {exc}"))
    finally:
        raw.close()


def _child(display: str, name: str) -> str:
    norm = name.replace("\\", "/")
    while norm.startswith("./"):
        norm = norm[2:]
    return f"{display}!/{shown_name(norm)}"


def _nested(name: str) -> bool:
    return is_archive(logical_name(name.rsplit("/", 1)[-1]))


def _iter_tar(
    display: str, raw: ByteStream, budget: InflateBudget, skipped: list[SkippedFile]
) -> Iterator[InputFile]:
    head = raw.read(6)
    raw = PrefixedStream(head, raw)
    factory = decompressor_for(head)
    stream: ByteStream = raw
    if factory is not None:
        counter = _Counting(raw)
        stream = BoundedReader(factory(fileobj=counter), budget, lambda: counter.count)
    with tarfile.open(fileobj=cast(Any, stream), mode="r|") as tf:
        for seen, member in enumerate(tf, 1):
            if _capped(display, seen, skipped):
                return
            cast(Any, tf).members.clear()  # streaming: the members passed are not needed again
            name = member.name
            child = _child(display, name)
            if member.isdir():
                continue
            problem = member_problem(name)
            if problem is None:
                if member.issym():
                    problem = f"symlink to {member.linkname}"
                elif member.islnk():
                    problem = f"hard link to {member.linkname}"
                elif member.ischr() or member.isblk():
                    problem = "device file"
                elif member.isfifo():
                    problem = "FIFO"
                elif not member.isfile():
                    problem = "not a regular file"
            if problem:
                skipped.append(SkippedFile(path=child, reason=f"unsafe archive member: {problem}"))
                continue
            if _nested(name):
                skipped.append(SkippedFile(path=child, reason="nested archive (not opened)"))
                continue
            yield InputFile(
                display=child,
                size=member.size,
                opener=lambda m=member: _extract(tf, m),  # type: ignore[misc]
                gz=_gz(name),
                budget=budget,
            )


def _extract(tf: tarfile.TarFile, member: tarfile.TarInfo) -> ByteStream:
    fh = tf.extractfile(member)
    if fh is None:
        raise OSError("member has no data")
    return fh


def _gz(name: str) -> bool:
    return name.lower().endswith(".gz") and not is_archive(name)


def _iter_zip(
    display: str, fh: ByteStream, budget: InflateBudget, skipped: list[SkippedFile]
) -> Iterator[InputFile]:
    with zipfile.ZipFile(cast(Any, fh)) as zf:
        for seen, info in enumerate(zf.infolist(), 1):
            if _capped(display, seen, skipped):
                return
            name = info.filename
            child = _child(display, name)
            if info.is_dir():
                continue
            problem = member_problem(name)
            mode = info.external_attr >> 16
            if problem is None:
                if stat.S_ISLNK(mode):
                    problem = "symlink"
                elif mode and not stat.S_ISREG(mode) and stat.S_IFMT(mode):
                    problem = "not a regular file"
            if problem:
                skipped.append(SkippedFile(path=child, reason=f"unsafe archive member: {problem}"))
                continue
            if info.flag_bits & 0x1:
                skipped.append(SkippedFile(path=child, reason="encrypted archive member"))
                continue
            if _nested(name):
                skipped.append(SkippedFile(path=child, reason="nested archive (not opened)"))
                continue
            yield InputFile(
                display=child,
                size=info.file_size,
                opener=lambda i=info: _zip_member(zf, i, budget),  # type: ignore[misc]
                gz=_gz(name),
                budget=budget,
            )


def _zip_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, budget: InflateBudget) -> BoundedReader:
    """A zip member read under the inflation budget. The bomb ratio compares what was inflated
    with the compressed bytes consumed so far, as for .gz, not with the whole member: a 1 GiB
    text bomb otherwise inflates in full before the ratio is ever reached."""
    member = zf.open(info)
    total = max(info.compress_size, 1)

    def consumed() -> int:
        # CPython's ZipExtFile reads compressed data ahead of need; what the decompressor has
        # not used yet (its unconsumed tail) does not count as consumed
        left = getattr(member, "_compress_left", None)
        if not isinstance(left, int):
            return total
        tail = getattr(getattr(member, "_decompressor", None), "unconsumed_tail", b"")
        return max(total - left - (len(tail) if isinstance(tail, bytes) else 0), 1)

    return BoundedReader(member, budget, consumed)
