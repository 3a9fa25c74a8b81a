"""What reading a stranger's file can raise, and how a skipped file's reason reads.

Every read of user data (plain files, compressed files, archive members, stdin, the copy
`kb new --from-evidence` makes) goes through this one list, so a new failure is reported and
skipped everywhere at once instead of escaping as a traceback from one path.
"""

from __future__ import annotations

import lzma
import tarfile
import zipfile
import zlib

from kb.evidence.bounded import InflateLimitError

# Corrupt or truncated containers (a flipped byte, a cut download).
ARCHIVE_ERRORS: tuple[type[BaseException], ...] = (
    tarfile.TarError,
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    OSError,
    EOFError,
    zlib.error,
    lzma.LZMAError,
    ValueError,
    NotImplementedError,  # a zip compression method Python lacks
    RuntimeError,  # an encrypted zip member
)
# Anything else a single file's read can raise on hostile bytes.
READ_ERRORS: tuple[type[BaseException], ...] = (InflateLimitError, *ARCHIVE_ERRORS)


def skip_reason(exc: BaseException) -> str:
    """Why a file was skipped, in the report's words."""
    if isinstance(exc, InflateLimitError):
        return str(exc)
    if isinstance(exc, zipfile.BadZipFile | tarfile.TarError | NotImplementedError):
        return f"corrupt archive member: {exc}"
    if isinstance(exc, PermissionError):
        return "unreadable: permission denied"
    return f"read error: {exc}"
