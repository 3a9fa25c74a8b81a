"""Joining log lines that a terminal or a browser wrapped when the user copied them.

A pasted console often has its long lines cut at the window's width: `…NumelIn=1, NumelOut=5`
then `164000, Timeout(ms)=600000)`. A pattern then misses the message it was written for. Only
small pasted files are considered, and only two sure signs count as a wrap:

- the line has exactly the width several other lines of the file have (the terminal's
  width), and the next line does not start like a log line of its own;
- the line ends inside a number or after `=` and the next line goes on with digits.

A line a program drew to a width of its own (a border, rule, banner or table row, see
`drawing.py`: torchrun's failure report is framed by 60-wide rules) is never cut, never the
rest of a cut line, and does not count as the terminal's width.

The joined text takes the first line's number and the second line is left empty, so every
other line keeps its number and `file:line` references stay true.

>>> unwrap(b"x [Rank 1] WorkNCCL(SeqNum=5, NumelOut=5\\n164000, Timeout(ms)=600000)\\nnext\\n")
b'x [Rank 1] WorkNCCL(SeqNum=5, NumelOut=5164000, Timeout(ms)=600000)\\n\\nnext\\n'
>>> a = b"h:1:2 [0] NCCL INFO NET/Socket : Using [0]eno4:10.3.68.117<0> [1]vethe94aab9:fe8"
>>> b = b"h:1:2 [1] NCCL INFO Bootstrap : Using [0]eno4:10.3.68.117<0> [1]vethe94aab9:fe80"
>>> len(a), len(b)
(80, 80)
>>> unwrap(a + b"\\n0::a86b<0>\\n" + b + b"\\n::a86b<0>\\n").split(b"\\n")[2:]
[b'h:1:2 [1] NCCL INFO Bootstrap : Using [0]eno4:10.3.68.117<0> [1]vethe94aab9:fe80::a86b<0>', b'', b'']
>>> unwrap(b"host:1:2 [0] NCCL INFO one\\nhost:1:2 [0] NCCL INFO two\\n")
b'host:1:2 [0] NCCL INFO one\\nhost:1:2 [0] NCCL INFO two\\n'
>>> rule = b"-" * 60
>>> unwrap(rule + b"\\nFailures:\\n" + rule + b"\\nRoot Cause (first observed failure):\\n") == (
...     rule + b"\\nFailures:\\n" + rule + b"\\nRoot Cause (first observed failure):\\n")
True
>>> bar = b"Map (num_proc=8):  12%|" + b"#" * 50
>>> unwrap(bar + b"\\n" + bar + b"\\n") == bar + b"\\n" + bar + b"\\n"
True
"""

from __future__ import annotations

import re

from kb.evidence.drawing import is_drawn
from kb.evidence.lazy_pattern import lazy
from kb.evidence.linestarts import ends_complete, same_shape, starts_own_line

MAX_BYTES = 1 << 20  # larger files were not pasted by hand
MIN_WIDTH = 60  # narrower "widths" are ordinary short lines
_ENDS_IN_NUMBER = lazy(rb"(\d|=)$")
_GOES_ON_WITH_DIGITS = lazy(rb"^\d+[,)\]]|^\d+$|^\d+ ")
# a version broken from its name: `… NCCL version` / `2.19.3+cuda12.3`, `torch==` / `2.1.0`,
# `torch` / `==2.1.0` (the one place such a break is certain)
_BEFORE_VERSION = lazy(rb"(?:\bversion:?|^\s*[A-Za-z][\w.-]*==|^\s*[A-Za-z][\w.-]*)$", re.I)
_VERSION_NEXT = lazy(rb"^\d+\.\d+\.\d+[\w.+-]*(?:\s|$)")
_PIN_NEXT = lazy(rb"^==\d+(?:\.\w+)+[\w.+-]*\s*$")
_PIN_VALUE = lazy(rb"^\d+(?:\.\w+)+[\w.+-]*\s*$")
_BARE_NAME = lazy(rb"^\s*[A-Za-z][\w.-]*$")


def unwrap(data: bytes) -> bytes:
    """The same bytes with wrapped lines joined (line count and numbering unchanged)."""
    if len(data) > MAX_BYTES or b"\n" not in data:
        return data
    lines = data.split(b"\n")
    terminal = _terminal_width(lines)
    out = list(lines)
    i = 0
    while i < len(out) - 1:
        line, nxt = out[i].rstrip(b"\r"), out[i + 1]
        joined = _version_join(line, nxt.rstrip(b"\r"))
        if joined is not None:
            out[i], out[i + 1] = joined, b""
            i += 2
            continue
        if not nxt.strip() or starts_own_line(nxt) or same_shape(line, nxt):
            # a line that begins like the one before it is the next of a series (progress
            # bars, repeated messages), not the rest of it
            i += 1
            continue
        cut = (terminal and len(line) == terminal) or (
            len(line) >= MIN_WIDTH // 2
            and _ENDS_IN_NUMBER.search(line)
            and _GOES_ON_WITH_DIGITS.match(nxt)
        )
        if not cut or is_drawn(line) or is_drawn(nxt) or ends_complete(line):
            i += 1
            continue
        out[i] = line + nxt.rstrip(b"\r")
        out[i + 1] = b""
        # a line wrapped twice goes on in the next one; the emptied line keeps the count
        j = i + 2
        while (
            terminal
            and len(out[i]) % terminal == 0
            and j < len(out)
            and out[j].strip()
            and not starts_own_line(out[j])
            and not is_drawn(out[j])
            and len(out[j - 1]) == 0
        ):
            out[i] += out[j].rstrip(b"\r")
            out[j] = b""
            j += 1
        i = j
    return b"\n".join(out)


def join_split_versions(text: str) -> str:
    """Only the version joins of `unwrap`, for files parsed whole (a pip freeze pasted from a
    narrow terminal: `torch==` / `2.1.0`); numbering kept the same way.

    >>> join_split_versions("torch==\\n2.1.0\\nnumpy==1.26.0\\n")
    'torch==2.1.0\\n\\nnumpy==1.26.0\\n'
    """
    lines = text.split("\n")
    for i in range(len(lines) - 1):
        joined = _version_join(lines[i].rstrip("\r").encode(), lines[i + 1].rstrip("\r").encode())
        if joined is not None:
            lines[i], lines[i + 1] = joined.decode(), ""
    return "\n".join(lines)


def _version_join(line: bytes, nxt: bytes) -> bytes | None:
    """`line` and `nxt` as one line when a version was broken from its name, else None."""
    if not _BEFORE_VERSION.search(line):
        return None
    if line.lower().rstrip(b":").endswith(b"version"):
        return line.rstrip() + b" " + nxt.lstrip() if _VERSION_NEXT.match(nxt) else None
    if line.endswith(b"=="):
        return line + nxt if _PIN_VALUE.match(nxt) else None
    if _BARE_NAME.match(line) and _PIN_NEXT.match(nxt):
        return line + nxt
    return None


def _terminal_width(lines: list[bytes]) -> int:
    """The width most lines of at least MIN_WIDTH share (when two or more do), not counting
    drawn lines. Lines are asked `is_drawn` only until their width is sure to win."""
    by_width: dict[int, list[bytes]] = {}
    for x in lines:
        n = len(x) - (x[-1:] == b"\r")
        if n >= MIN_WIDTH:
            by_width.setdefault(n, []).append(x)
    groups = sorted(by_width.items(), key=lambda item: -len(item[1]))
    width = seen = 0
    for i, (n, group) in enumerate(groups):
        if len(group) <= seen:
            break  # no width further down can have more lines
        # more own lines than the next width has lines at all: nothing below can beat it
        enough = max(seen, len(groups[i + 1][1]) if i + 1 < len(groups) else 0, 1) + 1
        own = 0
        for x in group:
            own += not is_drawn(x)
            if own >= enough:
                return n
        if own > seen:
            width, seen = n, own
    return width if seen >= 2 else 0
