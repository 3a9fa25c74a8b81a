"""Redacting what a job wrote into a `kb run` bundle, once the job has ended: the launcher's
output, torchrun's per-process logs, NCCL debug files, plogs, py-spy dumps, kb run's own
records. Each text file is read line by line (bounded memory) and rewritten only when a line
changed; binary files (Flight Recorder pickles) are left as they are."""

from __future__ import annotations

import os
from pathlib import Path

from kb.collect.redaction import Redactor

HEAD = 8192


def scrub_file(path: Path, redactor: Redactor, shown: str) -> bool:
    """Redacts one text file in place; True when something was replaced."""
    try:
        with path.open("rb") as fh:
            if b"\0" in fh.read(HEAD):
                return False
    except OSError:
        return False
    tmp = path.with_name(path.name + ".kb-redacting")
    changed = False
    try:
        with path.open("rb") as src, tmp.open("wb") as dst:
            for raw in src:
                line = raw.decode("utf-8", "surrogateescape")
                if redactor.may_hold_secret(line):
                    clean = redactor.text(shown, line)
                    if clean != line:
                        changed = True
                        raw = clean.encode("utf-8", "surrogateescape")
                dst.write(raw)
        if changed:
            os.replace(tmp, path)
    except OSError:
        changed = False
    finally:
        tmp.unlink(missing_ok=True)
    return changed


def scrub_tree(root: Path, redactor: Redactor, skip: tuple[str, ...] = ()) -> list[str]:
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
