"""PyTorch distributed: ProcessGroupNCCL/HCCL watchdog timeouts, DETAIL-mode collective
fingerprints, "Detected mismatch between collectives", NCCL errors raised to Python.

>>> from kb.evidence.sources.pytorch import parse_work, parse_fingerprint
>>> parse_work("WorkNCCL(SeqNum=78, OpType=BROADCAST, NumelIn=80, NumelOut=80, Timeout(ms)=600000) ran for 600096 milliseconds")
('broadcast', 78, 600000, 600096)
>>> parse_work("WorkNCCL(OpType=ALLREDUCE, TensorShape=[1024], Timeout(ms)=1800000) ran for 1800520 milliseconds")
('allreduce', None, 1800000, 1800520)
>>> parse_fingerprint("CollectiveFingerPrint(SequenceNumber=12, OpType=ALLREDUCE, TensorShape=[4, 8], TensorDtypes=Float, TensorDeviceTypes=cuda)")
('allreduce', 12, 32, 'Float')
>>> parse_fingerprint("CollectiveFingerPrint(SequenceNumber=513876813OpType=BROADCAST)")
('broadcast', 513876813, None, None)
>>> parse_progress("failure detected by watchdog at work sequence id: 55485 PG status: last enqueued work: 55487, last completed work: 55484")
(55485, 55487, 55484)
>>> parse_progress("Exception (either an error or timeout) detected by watchdog at work: 80078, last enqueued NCCL work: 80078, last completed NCCL work: 80077.")
(80078, 80078, 80077)
>>> parse_progress("[Rank 1] Last enqueued NCCL work: 21936, last completed 21936")
(None, 21936, 21936)
"""

from __future__ import annotations

import re
from typing import ClassVar

from kb.evidence.context import FileContext, Line
from kb.evidence.facts import CollectiveMismatch, QueuePosition, WatchdogTimeout
from kb.evidence.lazy_pattern import lazy
from kb.evidence.sources.base import LineSource
from kb.evidence.sources.collectives import CollectiveLog
from kb.evidence.sources.common import log_score, normalize_op, product

_WORK = lazy(r"Work[NH]CCL\((.*?)\) ran for (\d+) milliseconds")
_SEQ = lazy(r"(?:SeqNum|SequenceNumber)=(\d+)")
_OPTYPE = lazy(r"OpType=(\w+)")
_TIMEOUT = lazy(r"Timeout\(ms\)=(\d+)")
_SHAPE = lazy(r"TensorShape=\[([^\]]*)\]")
_DTYPE = lazy(r"TensorDtypes=(\w+)")
_MISMATCH = lazy(
    r"Rank (\d+) is running (?:inconsistent )?collective: (?:CollectiveFingerPrint\((.*?)\)[,.]|(\w+))"
    r"(?:.*?but Rank (\d+) is running (?:inconsistent )?collective: (?:CollectiveFingerPrint\((.*?)\)\.|(\w+)))?"
)
_AT_WORK = lazy(r"(?:at work sequence id|detected by watchdog at work|Timeout at NCCL work): (\d+)")
_ENQUEUED = lazy(r"last enqueued (?:NCCL )?work: (\d+)", re.I)
_COMPLETED = lazy(r"last completed (?:NCCL )?(?:work:? )?(-?\d+)", re.I)
_HEAD = lazy(
    r"\[rank\d+\]:|ProcessGroup(NCCL|HCCL|Gloo)|torch\.distributed|Traceback \(most recent call last\)|CollectiveFingerPrint"
)


def parse_work(text: str) -> tuple[str, int | None, int | None, int | None] | None:
    """(op, seq, timeout_ms, elapsed_ms) from a watchdog timeout line."""
    m = _WORK.search(text)
    if not m:
        return None
    inner = m.group(1)
    op = _OPTYPE.search(inner)
    seq = _SEQ.search(inner)
    tmo = _TIMEOUT.search(inner)
    return (
        normalize_op(op.group(1)) if op else "unknown",
        int(seq.group(1)) if seq else None,
        int(tmo.group(1)) if tmo else None,
        int(m.group(2)),
    )


def parse_progress(text: str) -> tuple[int | None, int, int | None] | None:
    """(work that failed, last enqueued, last completed) from a PG status line."""
    enq = _ENQUEUED.search(text)
    if not enq:
        return None
    at = _AT_WORK.search(text)
    done = _COMPLETED.search(text)
    return (
        int(at.group(1)) if at else None,
        int(enq.group(1)),
        int(done.group(1)) if done else None,
    )


def parse_fingerprint(text: str) -> tuple[str, int | None, int | None, str | None] | None:
    """(op, seq, element count, dtype) from a CollectiveFingerPrint."""
    op = _OPTYPE.search(text)
    if not op:
        return None
    seq = _SEQ.search(text)
    shape = _SHAPE.search(text)
    count = None
    if shape and re.fullmatch(r"[\d, ]+", shape.group(1)):
        count = product(int(d) for d in shape.group(1).split(",") if d.strip())
    dtype = _DTYPE.search(text)
    return (
        normalize_op(op.group(1)),
        int(seq.group(1)) if seq else None,
        count,
        dtype.group(1) if dtype else None,
    )


class PyTorchSource(LineSource):
    name = "pytorch"
    description = "PyTorch c10d logs: watchdog timeouts, DETAIL fingerprints, mismatches"
    patterns: ClassVar[dict[str, tuple[str, bool]]] = {
        "watchdog": (r"Watchdog caught collective operation timeout", False),
        "detail": (r"Running collective: CollectiveFingerPrint", False),
        "mismatch": (r"Detected mismatch between collectives", False),
        "pg_status": (r"failure detected by watchdog at work sequence id", False),
        "progress": (r"last enqueued (NCCL )?work: \d+", True),
        "errors": (
            r"NCCL error in: |Process group watchdog thread terminated|Some NCCL operations have failed"
            r"|DistBackendError|Finished writing NCCLPG debug info",
            False,
        ),
    }

    suspicious_keys: ClassVar[frozenset[str]] = frozenset({"pg_status", "errors"})

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._ops = CollectiveLog(self.ctx, self.name)

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        return log_score(head, _HEAD)

    def finish(self) -> None:
        self._ops.finish()

    def on_line(self, key: str, line: Line) -> None:
        facts = self.ctx.facts
        if key == "watchdog":
            work = parse_work(line.body)
            if work:
                op, seq, tmo, elapsed = work
                facts.watchdog_timeouts.append(
                    WatchdogTimeout(
                        rank=line.rank, op=op, seq=seq, timeout_ms=tmo, elapsed_ms=elapsed,
                        evidence=self.ctx.evidence(line, self.name),
                    )
                )  # fmt: skip
            self.ctx.suspicious(line, self.name)
        elif key == "progress":
            progress = parse_progress(line.body)
            if progress and len(facts.queue_positions) < 4096:
                at, enqueued, completed = progress
                facts.queue_positions.append(
                    QueuePosition(
                        rank=line.rank,
                        failed_at=at,
                        last_enqueued=enqueued,
                        last_completed=completed,
                        evidence=self.ctx.evidence(line, self.name),
                    )
                )
        elif key == "detail":
            fp = parse_fingerprint(line.body.split("Running collective:", 1)[1])
            if fp:
                self._ops.add(line, *fp)
        elif key == "mismatch":
            m = _MISMATCH.search(line.body)
            mm = CollectiveMismatch(evidence=self.ctx.evidence(line, self.name))
            if m:
                mm.rank_a = int(m.group(1))
                fa = parse_fingerprint(m.group(2)) if m.group(2) else None
                mm.op_a = fa[0] if fa else normalize_op(m.group(3)) if m.group(3) else None
                if m.group(4):
                    mm.rank_b = int(m.group(4))
                    fb = parse_fingerprint(m.group(5)) if m.group(5) else None
                    mm.op_b = fb[0] if fb else normalize_op(m.group(6)) if m.group(6) else None
            facts.mismatches.append(mm)
            self.ctx.suspicious(line, self.name)
        else:
            self.ctx.suspicious(line, self.name)
