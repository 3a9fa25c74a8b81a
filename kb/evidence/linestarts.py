"""What a line looks like when a program printed it complete, for `unwrap.py`.

A terminal cuts a long line at its width, wherever that falls; the rest then starts the
next line. These are the signs that a line begins a record of its own (so it is not the rest
of the line before) or ends one (so it was not cut), each seen as a false join in a pasted
console: c10 stack frames, Trainer dicts, tqdm bars, sentences, `Key: value` printouts,
series of lines of one shape, tab-separated tables, Ascend error codes, shell prompts.

>>> starts_own_line(b"frame #3: c10::Error::Error() + 0x98"), starts_own_line(b"n=1, NumelOut=1")
(True, False)
>>> starts_own_line(b"For debugging consider passing CUDA_LAUNCH_BLOCKING=1")
True
>>> ends_complete(b"Train:  38%|###8      | 1184/3120 [6:02:11<9:51:07, 18.32s/it]")
True
>>> same_shape(b"22-09-01 02:48:36.264 : <epoch", b"22-09-01 03:06:01.631 : <epoch")
True
"""

from __future__ import annotations

from kb.evidence.drawing import BOX
from kb.evidence.lazy_pattern import lazy

# the start of a line of its own: a launcher/rank/NCCL prefix, a timestamp, a traceback line,
# glog severity, indentation, a table or comment mark, a c10 frame, a dict, a program's
# `name: error:`, a Python warning's `/path.py:93: `, an Ascend error code, libstdc++'s
# terminate line, a shell prompt, `srun --label`'s `3: `, a
# sentence (`Capital word word`) or a `Key words: value` printout
_STARTS = lazy(
    rb"^(\s|\[|#|\||\+|-|=|>|\$|\{|\d{4}-\d\d-\d\d|\d\d:\d\d:\d\d|\d\d/\d\d/\d{4} |\d\d-\d\d-\d\d "
    rb"|[A-Z]\d{4} |[\w.-]+:\d+:\d+ \[\d+\]|frame #\d+|terminate called|[A-Z]{2}\d{4}:"
    rb"|Traceback|File \"|During handling|The above exception|[A-Za-z_.]*(Error|Exception|Warning)\b"
    rb"|(NCCL|INFO|WARN|WARNING|ERROR|DEBUG|torch|RuntimeError|ncclRemoteError)\b"
    rb"|[\w.-]+: (?:[Ee]rror|ERROR|[Ww]arning|WARNING|[Ff]atal|FATAL)\b"
    rb"|(?:\([\w.-]+\) )?[\w.-]+@[\w.-]+:|/[\w./-]+:\d+: |\d{1,5}: "
    rb"|[A-Z][a-z]+ [a-z]+|[A-Z]\w*(?: [\w()]+){0,4}:(?:\s|$)|" + BOX + rb")"
)
# a tqdm bar ends with its rate (`5.91it/s]`, `44.65s/it, loss=0.9]`); a line padded with
# spaces to the width, or one starting `#` (nccl-tests' rows, comments), was printed whole
_COMPLETE = lazy(rb"(?:it/s|s/it|B/s)(?:,[^\]]*)?\]\s*$| {8}$|^#")
_DICT = lazy(rb"^\{.*\}\s*$")
_DIGITS = lazy(rb"\d")


def starts_own_line(line: bytes) -> bool:
    """True when `line` begins a record of its own (never the rest of a cut line)."""
    return _STARTS.match(line) is not None or is_tab_row(line)


def ends_complete(line: bytes) -> bool:
    """True when `line` was printed whole: a bar, a dict, a padded or `#` row, a tab row."""
    return _COMPLETE.search(line) is not None or _DICT.match(line) is not None or is_tab_row(line)


def is_tab_row(line: bytes) -> bool:
    """A row of a tab-separated table (`nvidia-smi topo -m`, `show_gids`)."""
    return line.count(b"\t") >= 3


def same_shape(a: bytes, b: bytes) -> bool:
    """The next of a series (progress lines, repeated messages, `Device: N, …`): both begin
    alike, digits aside."""
    return _DIGITS.sub(b"0", a[:12]) == _DIGITS.sub(b"0", b[:12])
