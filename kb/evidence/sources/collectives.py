"""The collective sequence of one file, kept whole but cheaply.

Entry logs (HCCL_ENTRY_LOG_ENABLE, NCCL COLL traces, DETAIL fingerprints) print one line per
collective, so a long run leaves hundreds of thousands. Queries need every op (counts and the
last op per rank) but show only a few lines, so each op is stored as a small tuple and only the
first and last `KEEP` ops of each rank, and the last op of each kind per rank (a query may
filter by op), get an evidence line (`CollectiveOp.evidence` is None for the others).
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple, cast

from kb.evidence.context import FileContext, Line
from kb.evidence.facts import CollectiveOp, EvidenceLine

KEEP = 4  # evidence lines kept at each end of a rank's sequence


class _Op(NamedTuple):
    no: int
    pid: int | None
    rank: int | None
    op: str
    seq: int | None
    numel: int | None
    dtype: str | None


class CollectiveLog:
    """Collects ops in file order; `finish` turns them into `CollectiveOp` facts."""

    def __init__(self, ctx: FileContext, source: str) -> None:
        self.ctx, self.source = ctx, source
        self._ops: list[_Op] = []
        self._head: dict[int, EvidenceLine] = {}  # op index -> evidence (first KEEP of a rank)
        self._head_count: dict[object, int] = {}
        # last KEEP (index, line) per rank, and the last op of each kind; a line recorded from
        # its bytes (`add_raw`) is kept as (line number, bytes) and decoded only if it stays
        self._tail: dict[object, deque[tuple[int, Line | tuple[int, bytes]]]] = {}
        self._last_of: dict[tuple[object, str], tuple[int, Line | tuple[int, bytes]]] = {}

    def full(self) -> bool:
        return len(self._ops) >= self.ctx.limits.collectives_per_file

    def add(
        self, line: Line, op: str, seq: int | None, count: int | None, dtype: str | None
    ) -> None:
        if self.full():
            return
        who: object = line.rank if line.rank is not None else ("pid", line.pid)
        self._keep(_Op(line.no, line.pid, line.rank, op, seq, count, dtype), who, line)

    def add_raw(
        self,
        no: int,
        raw: bytes,
        rank: int,
        op: str,
        seq: int | None,
        count: int | None,
        dtype: str | None,
    ) -> None:
        """`add` for a line whose rank the caller knows without decoding it."""
        if self.full():
            return
        if self._head_count.get(rank, 0) < KEEP:
            self._keep(_Op(no, None, rank, op, seq, count, dtype), rank, self.ctx.line(no, raw))
        else:
            self._keep(_Op(no, None, rank, op, seq, count, dtype), rank, (no, raw))

    def _keep(self, o: _Op, who: object, line: Line | tuple[int, bytes]) -> None:
        index = len(self._ops)
        self._ops.append(o)
        self._last_of[(who, o.op)] = (index, line)
        seen = self._head_count.get(who, 0)
        if seen < KEEP:
            self._head_count[who] = seen + 1
            self._head[index] = self.ctx.evidence(cast(Line, line), self.source)
            return
        tail = self._tail.get(who)
        if tail is None:
            tail = self._tail[who] = deque(maxlen=KEEP)
        tail.append((index, line))

    def finish(self) -> None:
        """Appends the ops to the file's facts; ranks learnt late (NCCL pid → rank) apply."""
        evidence = dict(self._head)
        for index, line in [*self._last_of.values(), *(x for t in self._tail.values() for x in t)]:
            if index not in evidence:
                if not isinstance(line, Line):
                    line = self.ctx.line(*line)
                evidence[index] = self.ctx.evidence(line, self.source)
        pid_rank = self.ctx.pid_ranks.get
        out = self.ctx.facts.collectives
        file = self.ctx.display
        for index, o in enumerate(self._ops):
            rank = o.rank if o.rank is not None else pid_rank(o.pid)
            ev = evidence.get(index)
            if ev is not None and ev.rank is None:
                ev.rank = rank
            out.append(
                CollectiveOp(
                    rank=-1 if rank is None else rank, op=o.op, seq=o.seq, count=o.numel,
                    dtype=o.dtype, evidence=ev, file=file, line=o.no,
                )
            )  # fmt: skip
        self._ops.clear()
