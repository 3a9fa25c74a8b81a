"""Standard input as evidence (`kb diagnose -e -`): spooled, bounded, and sniffed so a piped
zip or tar is read as one. Kept apart from the folder walk (`inputs.py`)."""

from __future__ import annotations

import gzip
import io
import sys
import tempfile
from typing import Any, cast

from kb.evidence.bounded import ByteStream
from kb.evidence.facts import SkippedFile
from kb.evidence.inputs import InputFile
from kb.evidence.limits import Limits


def spool_stdin(limits: Limits, skipped: list[SkippedFile]) -> InputFile:
    """Buffers standard input (bounded) so it can be sniffed, and read as zip or tar if it is one."""
    spool: Any = tempfile.SpooledTemporaryFile(max_size=16 * 1024 * 1024)  # noqa: SIM115
    stdin = sys.stdin
    if stdin is None or getattr(stdin, "buffer", None) is None:
        skipped.append(SkippedFile(path="<stdin>", reason="standard input is closed"))
        src: Any = io.BytesIO(b"")
    else:
        src = stdin.buffer
    copied = 0
    while copied < limits.stdin_max:
        chunk = src.read(min(1 << 20, limits.stdin_max - copied))
        if not chunk:
            break
        spool.write(chunk)
        copied += len(chunk)
    if copied >= limits.stdin_max and src.read(1):
        copied = _drop_cut_line(spool, copied)
        skipped.append(
            SkippedFile(
                path="<stdin>",
                reason=f"too large: only the first {copied} bytes read "
                f"(whole lines up to the {limits.stdin_max}-byte limit)",
            )
        )
    spool.seek(0)
    data_head = spool.read(600)
    spool.seek(0)
    holder = _Unclosable(spool)

    def reopen() -> ByteStream:
        spool.seek(0)
        return cast(ByteStream, holder)

    gzipped = data_head.startswith(b"\x1f\x8b")
    tar_gz = gzipped and _looks_like_tar_gz(spool)
    archive = tar_gz or data_head.startswith(b"PK\x03\x04") or data_head[257:262] == b"ustar"
    return InputFile(
        display="<stdin>", size=copied, opener=reopen, gz=gzipped and not tar_gz, archive=archive
    )


def _drop_cut_line(spool: Any, size: int) -> int:
    """Truncate the spool after its last newline: the line the size limit cut through is
    incomplete, and read as if whole it could say something the real line does not."""
    tail = max(0, size - (1 << 20))
    spool.seek(tail)
    last = spool.read(size - tail).rfind(b"\n")
    keep = tail + last + 1 if last != -1 else tail
    spool.truncate(keep)
    return keep


def _looks_like_tar_gz(spool: Any) -> bool:
    try:
        with gzip.GzipFile(fileobj=cast(Any, _Unclosable(spool)), mode="rb") as gz:
            block = gz.read(512)
    except (OSError, EOFError):
        return False
    finally:
        spool.seek(0)
    return block[257:262] == b"ustar"


class _Unclosable:
    """Lets a shared spooled buffer be handed out as a stream several times."""

    def __init__(self, raw: ByteStream) -> None:
        self._raw = raw

    def close(self) -> None:
        pass

    def __getattr__(self, name: str) -> object:
        return getattr(self._raw, name)


def copy_limited(src: ByteStream, dst: Any, limit: int) -> int:
    """Copies at most `limit` bytes."""
    n = 0
    while n < limit:
        chunk = src.read(min(1 << 20, limit - n))
        if not chunk:
            break
        dst.write(chunk)
        n += len(chunk)
    return n
