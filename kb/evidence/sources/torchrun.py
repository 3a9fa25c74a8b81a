"""torchrun / torch.distributed.elastic: the agent's failure lines and the ChildFailedError report.

The report (`torch/distributed/elastic/multiprocessing/errors/__init__.py`, `format_msg`) is a
`=` border, `<name> FAILED`, a `-` rule, `Failures:` (the other failures, or
`<NO_OTHER_FAILURES>`), a rule, `Root Cause (first observed failure):` and a border; each
failure is a block of `time`, `host`, `rank (local_rank)`, `exitcode (pid)`, `error_file` and
`traceback` fields. Each block becomes a `ProcessFailure`; with an error file, `traceback` is
the worker's whole traceback indented by two spaces, and the exception line that ends it is
kept. The agent's own line names only a local rank; the report's block with the same pid
gives it its global rank.

>>> from kb.evidence.sources.torchrun import parse_agent_failed
>>> parse_agent_failed("failed (exitcode: -6) local_rank: 1 (pid: 4712) of binary: /usr/bin/python3")
(-6, 1, 4712)
"""

from __future__ import annotations

from typing import ClassVar

from kb.evidence.context import FileContext, Line
from kb.evidence.facts import ProcessFailure
from kb.evidence.lazy_pattern import lazy
from kb.evidence.sources.base import LineSource
from kb.evidence.sources.common import log_score

_AGENT = lazy(r"failed \(exitcode: (-?\d+)\) local_rank: (\d+) \(pid: (\d+)\)")
_FIELD = lazy(r"^\s*(time|host|rank|exitcode|error_file|traceback)\s*: (.*)$")
_RANK = lazy(r"(-?\d+) \(local_rank: (-?\d+)\)")
_EXIT = lazy(r"(-?\d+) \(pid: (\d+)\)")
_SIGNAL = lazy(r"Signal \d+ \((SIG[A-Z0-9]+)\)")
# `  RuntimeError: …`, the line that ends a worker's traceback in the report. The regex is the
# text-log source's own (unanchored, so it costs the scan nothing more); the two spaces of
# the report's indent are checked on the bytes (`skip`)
_EXCEPTION = r"\b[A-Za-z_][A-Za-z0-9_.]*(Error|Exception): "
_NOT_AVAILABLE = "<N/A>"
_HEAD = lazy(r"^\[[A-Za-z_]+\d+\]:|torch\.distributed\.(elastic|run)|ChildFailedError|torchrun")


def parse_agent_failed(body: str) -> tuple[int, int, int] | None:
    """(exitcode, local_rank, pid) from the elastic agent's failure line."""
    m = _AGENT.search(body)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


class TorchrunSource(LineSource):
    name = "torchrun"
    description = "torchrun / elastic agent output and ChildFailedError tables"
    patterns: ClassVar[dict[str, tuple[str, bool]]] = {
        "agent_failed": (r"failed \(exitcode: -?\d+\) local_rank: \d+ \(pid: \d+\)", False),
        "child_failed": (
            r"ChildFailedError|Root Cause \(first observed failure\)|^Failures:",
            False,
        ),
        "field": (r"^[ \t]*(time|host|rank|exitcode|error_file|traceback)[ \t]*: ", False),
        "closing": (r"Sending process \d+ closing signal SIG[A-Z]+", False),
        "exception": (_EXCEPTION, False),
    }

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._in_table = False
        self._root = False
        self._current: ProcessFailure | None = None
        self._open_traceback: ProcessFailure | None = None  # a worker's traceback goes on

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        return log_score(head, _HEAD)

    suspicious_keys: ClassVar[frozenset[str]] = frozenset({"closing"})
    raw_keys: ClassVar[frozenset[str]] = frozenset({"exception"})

    def skip(self, key: str, no: int, raw: bytes) -> bool:
        """An exception line counts only inside a report's traceback, indented by two."""
        return self._open_traceback is None or not (raw[:2] == b"  " and raw[2:3] != b" ")

    def on_line(self, key: str, line: Line) -> None:
        body = line.body
        if key == "agent_failed":
            got = parse_agent_failed(body)
            if got:
                exitcode, local_rank, pid = got
                self.ctx.facts.process_failures.append(
                    ProcessFailure(
                        local_rank=local_rank, exitcode=exitcode, pid=pid,
                        evidence=self.ctx.evidence(line, self.name),
                    )
                )  # fmt: skip
            self.ctx.suspicious(line, self.name)
        elif key == "child_failed":
            self._in_table = True
            self._open_traceback = None
            if "Root Cause" in body:
                self._root = True
            elif "Failures:" in body:
                self._root = False
            self.ctx.suspicious(line, self.name)
        elif key == "field" and self._in_table:
            self._field(line)
        elif key == "closing":
            self.ctx.suspicious(line, self.name)
        elif key == "exception" and self._open_traceback is not None:
            # the last exception line of the block is the one the worker died of
            failure = self._open_traceback
            failure.traceback = line.body.strip()
            self.ctx.suspicious(line, self.name, rank=failure.rank)

    def finish(self) -> None:
        """The agent's failure lines take the global rank and host of the report's block
        with the same pid."""
        failures = self.ctx.facts.process_failures
        reported = {f.pid: f for f in failures if f.rank is not None and f.pid is not None}
        for f in failures:
            block = reported.get(f.pid) if f.rank is None and f.pid is not None else None
            if block is not None:
                f.rank, f.host = block.rank, f.host or block.host

    def _field(self, line: Line) -> None:
        m = _FIELD.match(line.body)
        if not m:
            return
        name, value = m.group(1), m.group(2).strip()
        if name == "time":
            self._open_traceback = None
            self._current = ProcessFailure(
                root_cause=self._root, time=value, evidence=self.ctx.evidence(line, self.name)
            )
            self.ctx.facts.process_failures.append(self._current)
            return
        cur = self._current
        if cur is None:
            return
        if name == "host":
            cur.host = value
        elif name == "rank":
            r = _RANK.match(value)
            if r:
                cur.rank, cur.local_rank = int(r.group(1)), int(r.group(2))
                cur.evidence.rank = cur.rank
        elif name == "exitcode":
            e = _EXIT.match(value)
            if e:
                cur.exitcode, cur.pid = int(e.group(1)), int(e.group(2))
                self.ctx.suspicious(line, self.name, rank=cur.rank)
        elif name == "error_file":
            cur.error_file = None if value == _NOT_AVAILABLE else value
        elif name == "traceback":
            cur.traceback = value
            if value.startswith("Traceback (most recent call last)"):
                self._open_traceback = cur
            s = _SIGNAL.search(value)
            if s:
                cur.signal = s.group(1)
