"""Redacting what a job wrote into a `kb run` bundle, once the job has ended: the launcher's
output, torchrun's per-process logs, NCCL debug files, plogs, py-spy dumps, kb run's own
records. Each text file is streamed through the redactor line by line (a private-key block
still goes whole) and rewritten only when a line changed; binary files (Flight Recorder
pickles) are left as they are.

>>> import tempfile
>>> log = Path(tempfile.mkdtemp()) / "rank0.log"
>>> _ = log.write_text("max_new_tokens: 512\\nHF_TOKEN=hf_abcdefghijklmnopqrstu\\n")
>>> scrub_file(log, SecretRedactor({}), "rank0.log"), log.read_text()
(True, 'max_new_tokens: 512\\nHF_TOKEN=[REDACTED]\\n')
>>> scrub_file(log, SecretRedactor({}), "rank0.log")  # nothing left to remove
False
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from kb.redact.secrets import SecretRedactor

HEAD = 8192


def _decoded(src: BinaryIO) -> Iterator[str]:
    for raw in src:
        yield raw.decode("utf-8", "surrogateescape")


def scrub_file(path: Path, redactor: SecretRedactor, shown: str) -> bool:
    """Redacts one text file in place; True when something was replaced."""
    try:
        with path.open("rb") as fh:
            if b"\0" in fh.read(HEAD):
                return False
    except OSError:
        return False
    tmp = path.with_name(path.name + ".kb-redacting")
    before = redactor.count
    try:
        with path.open("rb") as src, tmp.open("wb") as dst:
            for line in redactor.lines(shown, _decoded(src)):
                dst.write(line.encode("utf-8", "surrogateescape"))
        changed = redactor.count > before
        if changed:
            os.replace(tmp, path)
    except OSError:
        changed = False
    finally:
        tmp.unlink(missing_ok=True)
    return changed


def scrub_tree(root: Path, redactor: SecretRedactor, skip: tuple[str, ...] = ()) -> list[str]:
    """Redacts every text file under `root` except the `skip` folders (already redacted);
    returns the files that changed, relative to `root`."""
    changed = []
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if os.path.relpath(os.path.join(dirpath, d), root)
                         not in skip)  # fmt: skip
        for name in sorted(files):
            path = Path(dirpath) / name
            if path.is_symlink() or not path.is_file():
                continue
            rel = str(path.relative_to(root))
            if scrub_file(path, redactor, rel):
                changed.append(rel)
    return changed
