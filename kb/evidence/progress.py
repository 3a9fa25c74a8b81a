"""Progress bars: most lines of many logs, and only the last one per rank matters.

They are kept raw while scanning and attributed once the file is read; for a large file on
disk they are not scanned at all but read from its tail (a seek, not a scan).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from kb.evidence.ansi import strip_ansi
from kb.evidence.context import FileContext, Line
from kb.evidence.lazy_pattern import lazy
from kb.evidence.patterns import PROGRESS
from kb.evidence.sources.base import LineSource
from kb.evidence.sources.text_log import TextLogSource
from kb.scan.regexes import line_regex

PROGRESS_TAIL = 512  # last progress lines kept per file: enough for every rank of a console
TAIL_BYTES = 1 << 20  # how much of a large file's end is searched for progress lines
TAIL_FIRST = 128 << 10  # tried first: enough when progress bars are most of the log
TAIL_FROM = 0  # files on disk larger than this read progress from their tail


_NON_ASCII_WORD = lazy(r"[^\W\x00-\x7f]")
_WORDS = ("step", "epoch", "iter")  # literals of the progress pattern's word alternatives


@lru_cache(maxsize=1)
def _progress_matcher() -> Callable[[str], bool]:
    """`re.search(progress, text, re.IGNORECASE)`, answered by RE2 when that is the same answer.

    Python's `re` is the reference (Unicode digits are `\\d`, `ſ` matches `s` caselessly, `\\b`
    sees non-ASCII letters); RE2 on bytes agrees whenever no character outside ASCII is a word
    character, which is every tqdm bar, and is about seven times faster on these lines."""
    regex = dict(TextLogSource.patterns)[PROGRESS[1]][0]
    slow = re.compile(regex, re.IGNORECASE)
    fast = line_regex(regex, True)

    def is_progress(text: str) -> bool:
        if text.isascii():
            # every alternative of the pattern needs one of these (ASCII case-folds plainly)
            lower = text.lower()
            if "%|" not in text and "/" not in text and not any(w in lower for w in _WORDS):
                return False
            return fast.search(text.encode("ascii")) is not None
        if _NON_ASCII_WORD.search(text) is None:
            return fast.search(text.encode("utf-8", "surrogatepass")) is not None
        return slow.search(text) is not None

    return is_progress


def tail_progress(fs_path: str, total_lines: int, ctx: FileContext, src: LineSource) -> None:
    """The last progress lines of a large file, found in its last MiB (a seek, not a scan).

    The last 128 KiB are tried first: when they hold PROGRESS_TAIL progress lines, those are
    the ones the whole MiB would give (searched from the end), so the rest is not read."""
    is_progress = _progress_matcher()
    try:
        with open(fs_path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            end = fh.tell()
            for window in (min(TAIL_FIRST, TAIL_BYTES), TAIL_BYTES):
                fh.seek(max(0, end - window))
                data = strip_ansi(fh.read(window))  # as the scan saw the file (ansi.py)
                found = _progress_lines(data, end > window, total_lines, is_progress)
                if len(found) == PROGRESS_TAIL or end <= window or window == TAIL_BYTES:
                    break
    except OSError:
        return
    src.on_lines(PROGRESS[1], last_per_rank(ctx, reversed(found)))


def last_per_rank(ctx: FileContext, items: Iterable[tuple[int, bytes | str]]) -> list[Line]:
    """The last progress line of each rank, in the order the ranks first appear.

    What `TextLogSource.on_lines` keeps of all the lines, but only those few are decoded and
    attributed in full; the rest only need their rank (`ctx.rank_of`)."""
    last: dict[int, tuple[int, bytes | str] | Line] = {}
    for no, raw in items:
        if ctx.only_file_rank(raw):
            last[-1 if ctx.file_rank is None else ctx.file_rank] = (no, raw)
        else:
            line = ctx.line(no, raw)
            last[-1 if line.rank is None else line.rank] = line
    return [v if isinstance(v, Line) else ctx.line(*v) for v in last.values()]


def _progress_lines(
    data: bytes, cut: bool, total_lines: int, is_progress: Callable[[str], bool]
) -> list[tuple[int, str]]:
    """(line number, text) of the last PROGRESS_TAIL progress lines of a file's tail, last first."""
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    if cut:
        lines = lines[1:]  # the first piece is the end of a line cut by the seek
    first = total_lines - len(lines) + 1
    found: list[tuple[int, str]] = []
    for offset in range(len(lines) - 1, -1, -1):  # from the end: the last bars are the ones
        text = lines[offset][:65536].decode("utf-8", "replace")
        if is_progress(text):
            found.append((first + offset, text))
            if len(found) == PROGRESS_TAIL:
                break
    return found
