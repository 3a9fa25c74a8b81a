"""Standard input as a file on disk, for the commands whose readers walk a path more than once
(`kb export jsonl` classifies, then sends; `kb new` copies, then drafts): `-` works there as
it does for `kb diagnose` and `kb evidence`."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def stdin_as_file(prog: str) -> Iterator[Path]:
    """Standard input spooled as `kb diagnose -` spools it (bounded: what is cut is said on
    stderr) into a temporary file named for what it holds (`stdin.tar.gz`, `stdin.zip`,
    `stdin.tar`, `stdin.gz`, `stdin`), removed when the block ends."""
    from kb.evidence.facts import SkippedFile
    from kb.evidence.limits import Limits
    from kb.evidence.stdin import spool_stdin

    skipped: list[SkippedFile] = []
    spooled = spool_stdin(Limits(), skipped)
    for s in skipped:
        print(f"{prog}: {s.path}: {s.reason}", file=sys.stderr)
    assert spooled.opener is not None  # spool_stdin always hands back its spool
    stream = spooled.opener()
    head = stream.read(4)
    if spooled.archive:
        suffix = (
            ".zip" if head.startswith(b"PK") else ".tar.gz" if head[:2] == b"\x1f\x8b" else ".tar"
        )
    else:
        suffix = ".gz" if spooled.gz else ""
    import tempfile  # here: `kb --help` must not pay for it

    with tempfile.TemporaryDirectory(prefix="kb-stdin-") as tmp:
        path = Path(tmp) / f"stdin{suffix}"
        with path.open("wb") as out:
            out.write(head)
            while chunk := stream.read(1 << 20):
                out.write(chunk)
        yield path
