"""Generic text log: the fallback for any text file, and the errors/progress every log shares.

Flags tracebacks, `SomethingError:` lines, timeouts, OOM and fatal signals as suspicious, and
keeps the last progress line (tqdm bar, "step N", "epoch N", "Iteration") per rank.

>>> from kb.evidence.sources.text_log import TextLogSource, progress_text
>>> progress_text(" 10%|#         | 10/100 [00:01<00:09]\\r 11%|#1        | 11/100 [00:01<00:09]")
'11%|#1        | 11/100 [00:01<00:09]'
"""

from __future__ import annotations

import re
from typing import ClassVar

from kb.evidence.context import Line
from kb.evidence.lazy_pattern import lazy
from kb.evidence.sources.base import LineSource

_NAME = lazy(r"\.(log|txt|out|err|stdout|stderr)$", re.IGNORECASE)


def progress_text(text: str) -> str:
    """tqdm rewrites its bar with carriage returns: keep only the last state."""
    parts = [p for p in text.split("\r") if p.strip()]
    return (parts[-1] if parts else text).strip()


class TextLogSource(LineSource):
    name = "text-log"
    description = "any text log (fallback): errors, timeouts, OOM, progress"
    patterns: ClassVar[dict[str, tuple[str, bool]]] = {
        "traceback": (r"Traceback \(most recent call last\)", False),
        "error": (
            r"\b[A-Za-z_][A-Za-z0-9_.]*(Error|Exception): |\[ERROR\]|\bERROR\b|\bFATAL\b"
            # PyTorch's C++ log at error level: `[E socket.cpp:435]` (before 2.2),
            # `[E709 17:05:38.162555850 ProcessGroupNCCL.cpp:632]`, and glog's `E0709 17:06:01.000000 4700 api.py:869]`
            r"|\[E(?:\d{3,4} [\d:.]+)? [\w./-]+:\d+\]|^E\d{4} [\d:.]+ +\d+ [\w./-]+:\d+\]",
            False,
        ),
        # not `TIMEOUT(ms): 600000`/`Timeout(ms)=…`: a setting echoed by every process group
        "timeout": (r"\btimed ?out\b|\btim(ing|e) out\b|\btimeout(?:[^\w(\n]|$)", True),
        "oom": (
            r"out of memory|OutOfMemoryError|CUDA_ERROR_OUT_OF_MEMORY|oom-kill|Killed process",
            True,
        ),
        "signal": (
            r"Signal \d+ \(SIG[A-Z]+\)|Segmentation fault|core dumped|SIGSEGV|SIGABRT|SIGKILL",
            False,
        ),
        "progress": (
            r"\d+%\|| \d+/\d+ \[\d+:\d+|\bstep[ =:]+\d+|\bepoch[ =:]+\d+|\bIteration[ =:]+\d+|\biter[ =:]+\d+",
            True,
        ),
    }

    # not "timeout": a setting echoed with it is told apart on the decoded line
    suspicious_keys: ClassVar[frozenset[str]] = frozenset({"traceback", "error", "oom", "signal"})

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        return 0.1 if _NAME.search(name) else 0.05

    def on_lines(self, key: str, lines: list[Line]) -> None:
        if key != "progress":
            super().on_lines(key, lines)
            return
        # only the last progress line of each rank is kept: build evidence for those alone
        # (same facts, same key order as one on_line call per line)
        last: dict[int, Line] = {}
        for line in lines:
            last[-1 if line.rank is None else line.rank] = line
        for line in last.values():
            self.on_line(key, line)

    def on_line(self, key: str, line: Line) -> None:
        if key == "progress":
            rank = -1 if line.rank is None else line.rank
            ev = self.ctx.evidence(line, self.name)
            ev.text = progress_text(line.body)
            self.ctx.facts.last_progress[rank] = ev
            return
        if key == "timeout" and (
            "set by" in line.body or ("=" in line.body and "TIMEOUT" in line.body)
        ):
            return  # a setting being echoed (HCCL_CONNECT_TIMEOUT set by default...), not a timeout
        self.ctx.suspicious(line, self.name)
