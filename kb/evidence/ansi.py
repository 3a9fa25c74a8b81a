"""Terminal escape sequences (colours, cursor moves, hyperlinks) taken out of what is read.

rich, colorlog, tqdm and py-spy colour what they print when the output is a terminal, and a
captured console keeps the codes: `\\x1b[36m[rank8]\\x1b[0m: …` hides the `[rank8]:` prefix from
the rank rules and from every pattern anchored at the start of a line, and a raw ESC shown in a
report would drive the reader's terminal. So every file is read through `AnsiFree`, once, before
classification, scanning and rank attribution: what the reader matches, attributes and quotes is
the text as the terminal showed it. Only ESC sequences go; line breaks never do, so line numbers
stay those of the file.

A chunk without an ESC byte (nearly all of them) costs one `in` test (memchr) and is passed on
as it is.

>>> strip_ansi(b"\\x1b[36m[rank8]\\x1b[0m: RuntimeError: x")
b'[rank8]: RuntimeError: x'
>>> strip_ansi(b"see \\x1b]8;;https://pytorch.org\\x1b\\\\docs\\x1b]8;;\\x1b\\\\ and \\x1b(Bplain\\x1b")
b'see docs and plain'
>>> s = AnsiFree(io.BytesIO(b"a\\x1b[3" + b"1mred\\x1b[0m\\n"))
>>> s.read(3) + s.read(3) + s.read()
b'ared\\n'
"""

from __future__ import annotations

import io

from kb.evidence.bounded import ByteStream
from kb.evidence.lazy_pattern import lazy

ESC = b"\x1b"
# CSI (colours, cursor moves), OSC ended by BEL or ST (titles, hyperlinks), and the short
# two- or three-byte escapes (`ESC ( B`, `ESC 7`); an ESC that starts none of them goes alone
_SEQUENCE = lazy(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b\n]*(?:\x07|\x1b\\)|[ -/]*[0-~])?")
# the start of one of those sequences, cut by the end of a read: kept for the next read
_UNFINISHED = lazy(rb"\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b\n]*\x1b?|[ -/]*)")
_HOLD_MAX = 4096  # longer than any sequence a terminal program prints (OSC 8 hyperlinks)


def strip_ansi(data: bytes) -> bytes:
    """`data` without terminal escape sequences (the same object when it has no ESC)."""
    return _SEQUENCE.sub(b"", data) if ESC in data else data


class AnsiFree(io.RawIOBase):
    """A byte stream with the escape sequences of `raw` removed, even those a read cut in two.

    Never returns more than asked, as `readinto` callers need."""

    def __init__(self, raw: ByteStream) -> None:
        self._raw = raw
        self._ready = b""  # stripped bytes not handed out yet
        self._held = b""  # an unfinished sequence at the end of the last read
        self._eof = False

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            out = self._ready + strip_ansi(self._held + self._raw.read())
            self._ready = self._held = b""
            self._eof = True
            return out
        while not self._ready and not self._eof:
            self._fill(size)
        out, self._ready = self._ready[:size], self._ready[size:]
        return out

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def _fill(self, size: int) -> None:
        data = self._raw.read(size)
        if not data:
            self._eof = True
            self._ready, self._held = strip_ansi(self._held), b""
            return
        if self._held:
            data, self._held = self._held + data, b""
        if ESC not in data:
            self._ready = data
            return
        # an OSC cut inside its ending (`ESC ]…ESC`) is held from its start, not from that ESC
        for start in sorted({data.rfind(b"\x1b]"), data.rfind(ESC)}):
            if start >= 0 and len(data) - start <= _HOLD_MAX and _UNFINISHED.fullmatch(data, start):
                data, self._held = data[:start], data[start:]
                break
        self._ready = strip_ansi(data)

    def close(self) -> None:
        try:
            self._raw.close()
        finally:
            super().close()
