"""Lines a program drew to a width of its own: borders, rules, banners and table rows.

torchrun's failure report is framed by `=` and `-` rules as wide as its longest line (at most
60), mpirun's messages by 74 dashes, nvidia-smi and rich by tables whose rows all have one
width. Such a line is complete as printed: it is never the first half of a line a terminal
wrapped, never the rest of one, and its width says nothing about the terminal's
(`unwrap.py` asks `is_drawn`).

>>> is_drawn(b"=" * 60), is_drawn(b"---     ----    -----"), is_drawn(b"+-----+------+")
(True, True, True)
>>> is_drawn(b"| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |")
True
>>> is_drawn("│   113 │   # We need to convert a slow tokenizer   │".encode())
True
>>> is_drawn("╭──────────── Traceback (most recent call last) ────────────╮".encode())
True
>>> is_drawn(b"***** Running training *****"), is_drawn(b"==> train.log <==")
(True, False)
>>> is_drawn(b"[2025-03-12 16:00:49,102] torch.distributed.run: [WARNING] " + b"*" * 40)
True
>>> is_drawn(b"Root Cause (first observed failure):"), is_drawn(b"| a wrapped row that goes on")
(False, False)
>>> is_drawn(b"--nproc_per_node=8"), is_drawn(b"  traceback : Signal 6 (SIGABRT) received by PID 4712")
(False, False)
"""

from __future__ import annotations

from kb.evidence.lazy_pattern import lazy

# U+2500-U+257F box drawing and U+2580-U+259F block elements, as UTF-8 bytes
BOX = rb"\xe2(?:[\x94\x95][\x80-\xbf]|\x96[\x80-\x9f])"
_RULE = lazy(rb"[ \t]*(?:[-=_~*#+|:]|" + BOX + rb"|[ \t])*")
_RUN = lazy(rb"[-=_~*#]{3}|" + BOX)
_EDGE = rb"(?:\||\+|" + BOX + rb")"
_ROW = lazy(rb"[ \t]*" + _EDGE + rb".*" + _EDGE)
_BANNER = lazy(rb"[ \t]*([-=_~*#])\1{2,}.*\S.*\1{3}")
_OPENS = frozenset(b"-=_~*#+|:\xe2")  # what a drawn line (stripped) can start with
_CLOSES = frozenset(b"-=_~*#")  # and a border behind a prefix ends with
_BLANK = frozenset(b" \t\r\n\x0b\x0c")
_BORDER_AFTER_PREFIX = lazy(rb".*\s([-=_~*#])\1{9,}")  # `[…] [WARNING] ***********`


def is_drawn(line: bytes) -> bool:
    """True for a border or rule (`=====`, `---  ----`, `+--+`, `┏━━┓`), a table row that
    opens and closes with a frame character (`| … |`, `│ … │`), a banner (`*** x ***`) or a
    border behind a log prefix."""
    if len(line) < 3:
        return False
    first, last = line[0], line[-1]
    if first not in _OPENS and last not in _CLOSES and first not in _BLANK and last not in _BLANK:
        return False  # most lines: no copy, no regex
    line = line.strip()
    if len(line) < 3 or (line[0] not in _OPENS and line[-1] not in _CLOSES):
        return False
    if _RULE.fullmatch(line):
        return _RUN.search(line) is not None
    return any(rx.fullmatch(line) is not None for rx in (_ROW, _BANNER, _BORDER_AFTER_PREFIX))
