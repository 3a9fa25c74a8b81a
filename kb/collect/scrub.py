"""Redacting what a job wrote into a `kb run` bundle, once the job has ended: the launcher's
output, torchrun's per-process logs, NCCL debug files, plogs, py-spy dumps, kb run's own
records. Each text file is streamed through the redactor line by line (a private-key block
still goes whole) and rewritten only when a line changed; binary files (Flight Recorder
pickles) are left as they are. A line longer than `PIECE` bytes (a job that prints a GiB
without a newline) goes through in pieces cut at whitespace, so memory stays bounded
whatever the line's length; a piece is never cut right after a key-like word, so a secret
and its key stay in one piece (a piece may look like a line's start to the redactor: it then
redacts more, never less).

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
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from kb.redact.secrets import _TRIGGER as TRIGGER
from kb.redact.secrets import SecretRedactor

HEAD = 8192
PIECE = 1 << 20  # bytes of a line handed to the redactor at once
_WORD = re.compile(rb"[^ \t\r\x0b\x0c]+")
TAIL = 4096  # bytes searched back for a place to cut; at most this much is carried


def _key_like(word: bytes) -> bool:
    """A word a secret may follow (`password:`, `--token`, `Bearer`, `KEY=`): the
    redactor's own trigger words, or a word ending in `:` or `=`."""
    lower = word.lower()
    return lower.endswith((b":", b"=")) or TRIGGER.search(lower.decode("latin-1")) is not None


def _cut(piece: bytes) -> int:
    """Where to end a piece of an unfinished line: at the last gap between words whose two
    words before are not key-like, so a key and its value (`password: x`, `Authorization:
    Basic x`) go to the redactor together; the last word, perhaps unfinished, always goes on
    with the next piece. At the end when the last `TAIL` bytes hold no such gap."""
    start = max(0, len(piece) - TAIL)
    words = [(m.start(), m.end()) for m in _WORD.finditer(piece, start)]
    for i in range(len(words) - 1, 0, -1):
        before = [piece[s:e] for s, e in words[max(0, i - 2) : i]]
        if not any(_key_like(w) for w in before):
            return words[i][0]
    return len(piece)


def _pieces(src: BinaryIO, size: int = PIECE) -> Iterator[bytes]:
    """The file's lines, each at most `size` bytes plus what was carried over; together
    exactly the file's bytes."""
    carry = b""
    while True:
        piece = carry + src.readline(size)
        if piece == carry:
            if carry:
                yield carry
            return
        if piece.endswith(b"\n"):
            carry = b""
            yield piece
            continue
        end = _cut(piece)
        carry = piece[end:]
        yield piece[:end]


def _decoded(src: BinaryIO) -> Iterator[str]:
    for raw in _pieces(src, PIECE):
        yield raw.decode("utf-8", "surrogateescape")


def scrub_file(path: Path, redactor: SecretRedactor, shown: str) -> bool:
    """Redacts one text file in place; True when something was replaced."""
    try:
        with path.open("rb") as fh:
            if b"\0" in fh.read(HEAD):
                return False
    except OSError:
        return False
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".kb-redacting", dir=path.parent)
    tmp = Path(name)  # a fresh name, created exclusively 0600: never a link planted in advance
    before = redactor.count
    try:
        with path.open("rb") as src, os.fdopen(fd, "wb") as dst:
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
