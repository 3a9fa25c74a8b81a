"""The catalogue's fingerprint kept between processes, for the stat data it was computed from.

Walking and hashing the catalogue's bytes (127 files) cost every `kb diagnose` about 15 ms
of CPU for the same answer each time. Its last value is kept in one small file beside the
compile cache with a hash of the files' stat signature (path, size, mtime and inode of each,
`load._stat_signature`), and is taken again only for an equal signature, as git's index
trusts a file whose stat data did not change. The caller never stores or asks for a
signature with a file written in the last 2 s (git's "racily clean" case: a rewrite within
the clock's granularity could keep the same size and mtime). An unreadable, foreign or
malformed file is a miss; a read-only cache only costs the hashing.
"""

from __future__ import annotations

import hashlib
import string
from pathlib import Path

MAGIC = b"kb-catalogue-fingerprint/1\n"


def _path() -> Path:
    from dsl.cache_place import cache_dir

    return cache_dir() / "catalogue-fingerprint"


def _digest(signature: tuple[tuple[object, ...], ...]) -> bytes:
    return hashlib.sha256(repr(signature).encode()).hexdigest().encode()


def recall(signature: tuple[tuple[object, ...], ...]) -> str | None:
    """The fingerprint stored for this very signature, or None."""
    try:
        data = _path().read_bytes()
    except OSError:
        return None
    head = MAGIC + _digest(signature) + b"\n"
    found = data[len(head) :].decode("ascii", "replace").strip()
    if not data.startswith(head) or not found or set(found) - set(string.hexdigits):
        return None
    return found


def remember(signature: tuple[tuple[object, ...], ...], fingerprint: str) -> None:
    """Keep `fingerprint` for `signature` (written whole, or not at all)."""
    from dsl.cache_place import write_cache_file

    data = MAGIC + _digest(signature) + b"\n" + fingerprint.encode() + b"\n"
    write_cache_file(_path(), data)
