"""Catalogued messages in lines no reader flagged: a second look at small files, only when
nothing else explains the folder.

The readers flag a line by its shape (`SomethingError: `, `NCCL WARN`, `[E …]`); a message
printed in another shape (`Libfabric error: (-12) Cannot allocate memory`, `EFA internal
error: (4112) Failure to post internal receive buffers`) passes unflagged, and the folder
reads as silent though the catalogue knows the line. When no case reaches a level, the small
plain files of the folder are read again, line by line, and the lines that *are* a catalogued
message (`is_catalogued_message`: the message itself after a program's prefix, not a
sentence quoting it) join the never-silent report. Bounded: a few small files, a few
thousand lines, only inside the evidence root, never through a link.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from kb.evidence.catalogued import MAX_LINE, is_catalogued_message
from kb.evidence.facts import EvidenceFile, EvidenceLine

MAX_FILE_BYTES = 256 * 1024  # a paste, an error file, a short log: not a rank's whole run
MAX_FILES = 16
MAX_LINES = 4000  # lines looked at, over all files
MAX_FOUND = 50
# the user's prose (its pasted blocks are read already), captures of settings and packages,
# and source code (a message in a string literal is not one printed)
SKIP_KINDS = frozenset(
    {
        "notes",
        "env-dump",
        "pip-freeze",
        "pip-list",
        "conda-list",
        "python-source",
        "accelerate-config",
        "collect-env",
        "accelerate-env",
        "nvidia-topo",
    }
)


def unflagged_messages(
    root: str | Path, files: Iterable[EvidenceFile], flagged: set[tuple[str, int]]
) -> list[EvidenceLine]:
    """The lines of `root`'s small plain files that are catalogued messages, beyond
    `flagged` ((file, line) already kept), first file first, each line once."""
    base = Path(root)
    if not base.is_dir():
        return []  # stdin, a single file handed over: its lines were all read as one
    real_base = os.path.realpath(base)
    found: list[EvidenceLine] = []
    budget = MAX_LINES
    taken = 0
    for f in files:
        if taken >= MAX_FILES or budget <= 0 or len(found) >= MAX_FOUND:
            break
        if "!/" in f.path or f.kind in SKIP_KINDS or not 0 < f.size <= MAX_FILE_BYTES:
            continue
        path = base / f.path
        real = os.path.realpath(path)
        if os.path.islink(path) or os.path.commonpath([real_base, real]) != real_base:
            continue
        try:
            with open(real, "rb") as fh:
                data = fh.read(MAX_FILE_BYTES + 1)
        except OSError:
            continue
        if len(data) > MAX_FILE_BYTES or b"\0" in data:
            continue
        taken += 1
        for no, raw in enumerate(data.decode("utf-8", "replace").splitlines()[:budget], 1):
            budget -= 1
            if (f.path, no) in flagged or len(raw) > MAX_LINE:
                continue
            if is_catalogued_message(raw):
                found.append(
                    EvidenceLine(
                        file=f.path, line=no, rank=f.rank, text=raw.strip(), source="catalogue"
                    )
                )
                if len(found) >= MAX_FOUND:
                    break
    return found
