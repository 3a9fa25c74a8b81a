"""Stack dumps: `py-spy dump` and Python faulthandler, standalone or inside a console log.

Frames are kept innermost first (both tools print them that way). faulthandler output of
several ranks may interleave, so an open thread is kept per rank.
"""

from __future__ import annotations

import re
from typing import ClassVar

from kb.evidence.context import FileContext, Line
from kb.evidence.facts import StackFrame, StackThread
from kb.evidence.lazy_pattern import lazy
from kb.evidence.sources.base import LineSource

_PROCESS = lazy(r"^Process (\d+): ")
_PYSPY_THREAD = lazy(r'^Thread (0x[0-9a-fA-F]+|\d+) \(([\w+]+)\)(?:: "([^"]*)")?')
_PYSPY_FRAME = lazy(r"^\s{4}(\S.*?) \(([^()]*?):(\d+)\)\s*$")
_FH_THREAD = lazy(
    r"(Current thread|Thread) (0x[0-9a-fA-F]+)(?: \[([^\]]*)\])? \(most recent call first\)"
)
_FH_FRAME = lazy(r'File "([^"]+)", line (\d+) in (\S+)')
_MAX_FRAMES = 200


class StackDumpSource(LineSource):
    name = "stack-dump"
    description = "py-spy dump and Python faulthandler stacks"
    raw_keys: ClassVar[frozenset[str]] = frozenset({"pyspy_frame"})
    patterns: ClassVar[dict[str, tuple[str, bool]]] = {
        "process": (r"^Process \d+: ", False),
        "pyspy_thread": (r"^Thread (0x[0-9a-fA-F]+|\d+) \((idle|active|active\+gil|\w+)\)", False),
        # the end of `    fn (file.py:12)` is the literal part; `on_line` checks the rest
        # (a leading `^    \S.*` made the whole scan about a third slower)
        "pyspy_frame": (r"(?:\.pyx?|>):\d+\)[ \t]*$", False),
        "fh_thread": (r"(Current thread|Thread) 0x[0-9a-fA-F]+ .*most recent call first", False),
        "fh_frame": (r"File \"[^\"\n]+\", line \d+ in ", False),
    }

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._pid: int | None = None
        self._pyspy: StackThread | None = None
        self._fh: dict[int | None, tuple[StackThread, int]] = {}  # rank -> (thread, last line)

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        if re.search(r"^Process \d+: ", head, re.M) and re.search(r"^Python v\d", head, re.M):
            return 0.95
        if "(most recent call first)" in head:
            return (
                0.7
                if "Fatal Python error" in head
                or head.lstrip().startswith(("Current thread", "Thread 0x"))
                else 0.35
            )
        return 0.0

    def skip(self, key: str, no: int, raw: bytes) -> bool:
        """A frame line means something only inside a py-spy thread block."""
        return self._pyspy is None

    def on_line(self, key: str, line: Line) -> None:
        body = line.body
        if key == "process":
            m = _PROCESS.match(body)
            self._pid = int(m.group(1)) if m else None
            self._pyspy = None
        elif key == "pyspy_thread":
            m = _PYSPY_THREAD.match(body)
            if m:
                name = m.group(3) or m.group(1)
                self._pyspy = self._new(line, f"{name} ({m.group(2)})")
        elif key == "pyspy_frame" and self._pyspy is not None:
            m = _PYSPY_FRAME.match(body)
            if m and len(self._pyspy.frames) < _MAX_FRAMES:
                self._pyspy.frames.append(
                    StackFrame(function=m.group(1), file=m.group(2), line=int(m.group(3)))
                )
        elif key == "fh_thread":
            m = _FH_THREAD.search(body)
            if m:
                label = m.group(2) + (f" [{m.group(3)}]" if m.group(3) else "")
                if m.group(1) == "Current thread":
                    label += " (current)"
                self._fh[line.rank] = (self._new(line, label), line.no)
        elif key == "fh_frame":
            m = _FH_FRAME.search(body)
            open_ = self._fh.get(line.rank)
            if m and open_ and line.no - open_[1] <= 64:
                thread = open_[0]
                if len(thread.frames) < _MAX_FRAMES:
                    thread.frames.append(
                        StackFrame(function=m.group(3), file=m.group(1), line=int(m.group(2)))
                    )
                self._fh[line.rank] = (thread, line.no)

    def _new(self, line: Line, label: str) -> StackThread:
        thread = StackThread(
            rank=line.rank, pid=self._pid, thread=label, evidence=self.ctx.evidence(line, self.name)
        )
        self.ctx.facts.stacks.append(thread)
        return thread
