"""`collectives` queries: the collectives of every rank, compared across ranks."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from kb.match.context import MAX_LINES, Context
from kb.match.regex import search
from kb.match.results import QueryResult, Truth

if TYPE_CHECKING:  # a warm run evaluates the snapshot's records (kb.cache.records)
    from dsl.kinds.collectives import CollectivesQuery

# Ranks of one process group cannot drift far apart: every collective waits for all of
# them, so a rank runs at most a few (asynchronously enqueued) collectives ahead. Watchdog
# reports whose sequence numbers lie further apart than this come from different runs (two
# pasted consoles) or different groups, and comparing them proves nothing.
MAX_SEQ_SPREAD = 1000
_APART = (
    "watchdog sequence numbers %d apart: reports of different runs or process groups, "
    "not comparable"
)


def _span(seqs: Any) -> int:
    values = list(seqs)
    return max(values) - min(values) if values else 0


def one_run(seqs: Any) -> bool:
    """Whether the ranks' watchdog sequence numbers can belong to one group of one run.

    >>> one_run([20518, 20519]), one_run([369526, 20518]), one_run([])
    (True, False, True)
    """
    return _span(seqs) <= MAX_SEQ_SPREAD


def evaluate(q: CollectivesQuery, ctx: Context) -> QueryResult:
    facts = ctx.facts
    if q.check == "mismatch-reported":
        if facts.mismatches:
            return QueryResult(
                name=q.name,
                kind=q.kind,
                truth=Truth.TRUE,
                lines=[mm.evidence for mm in facts.mismatches][:MAX_LINES],
                ranks=sorted(
                    {r for mm in facts.mismatches for r in (mm.rank_a, mm.rank_b) if r is not None}
                ),
                detail=f"{len(facts.mismatches)} mismatch report(s)",
            )
        truth = (
            Truth.FALSE
            if any(f.kind in ("pytorch", "torchrun", "text-log") for f in facts.files)
            else Truth.UNKNOWN
        )
        return QueryResult(
            name=q.name,
            kind=q.kind,
            truth=truth,
            detail="no 'Detected mismatch between collectives' report",
        )
    if q.check == "seq-differs":
        # where each rank's queue stood: "last enqueued work" when PyTorch printed it (>= 2.2),
        # else the sequence number of the collective it timed out in
        seqs: dict[int, int] = {}
        lines = []
        for t in facts.watchdog_timeouts:
            if t.rank is not None and t.seq is not None:
                seqs[t.rank] = t.seq
                lines.append(t.evidence)
        for pos in facts.queue_positions:
            if pos.rank is not None:
                seqs[pos.rank] = pos.last_enqueued
                lines.append(pos.evidence)
        if len(seqs) < q.min_ranks:
            return QueryResult(
                name=q.name,
                kind=q.kind,
                truth=Truth.UNKNOWN,
                detail=f"watchdog sequence numbers from {len(seqs)} rank(s)",
            )
        if not one_run(seqs.values()):
            return QueryResult(
                name=q.name, kind=q.kind, truth=Truth.UNKNOWN, detail=_APART % _span(seqs.values())
            )
        ok = len(set(seqs.values())) > 1
        return QueryResult(
            name=q.name,
            kind=q.kind,
            truth=Truth.TRUE if ok else Truth.FALSE,
            lines=lines if ok else [],
            detail="queue position per rank: "
            + ", ".join(f"rank {r}: {s}" for r, s in sorted(seqs.items())),
        )
    per_rank: dict[int, list[Any]] = {}
    for op in facts.collectives:
        if q.op is None or search(q.op.pattern, op.op, q.op.ignore_case):
            per_rank.setdefault(op.rank, []).append(op)
    if len(per_rank) < q.min_ranks and q.check == "last-op-differs":
        # without entry logs, the op each rank timed out in is the last one it issued
        per_rank = {}
        for t in facts.watchdog_timeouts:
            if t.rank is not None and (
                q.op is None or search(q.op.pattern, t.op, q.op.ignore_case)
            ):
                per_rank.setdefault(t.rank, [t])  # the first report; later ones repeat it
        seen = [t.seq for t in facts.watchdog_timeouts if t.rank in per_rank and t.seq is not None]
        if not one_run(seen):
            return QueryResult(
                name=q.name, kind=q.kind, truth=Truth.UNKNOWN, detail=_APART % _span(seen)
            )
    if len(per_rank) < q.min_ranks:
        return QueryResult(
            name=q.name,
            kind=q.kind,
            truth=Truth.UNKNOWN,
            detail=f"collective sequences from {len(per_rank)} rank(s); need "
            f"{q.min_ranks} (HCCL_ENTRY_LOG_ENABLE=1 or "
            "TORCH_DISTRIBUTED_DEBUG=DETAIL)",
        )
    counts = {r: len(ops) for r, ops in per_rank.items()}
    last = {r: ops[-1] for r, ops in per_rank.items()}
    summary = "; ".join(f"rank {r}: {counts[r]} ops, last {last[r].op}" for r in sorted(per_rank))
    if q.check == "last-op-differs":
        ok = len({op.op for op in last.values()}) > 1
        ranking = Counter(op.op for op in last.values()).most_common()
        odd: list[int] = []
        if ok and ranking[0][1] > ranking[1][1]:  # a clear majority singles out the others
            odd = [r for r, op in last.items() if op.op != ranking[0][0]]
        lines = [ev for r in sorted(last) if (ev := last[r].evidence) is not None]
        return QueryResult(
            name=q.name,
            kind=q.kind,
            truth=Truth.TRUE if ok else Truth.FALSE,
            lines=lines if ok else [],
            detail=summary,
            ranks=sorted(odd),
        )
    if q.check == "count-differs":
        ok = len(set(counts.values())) > 1
    else:  # count-equal
        ok = len(set(counts.values())) == 1
    lines = [ev for r in sorted(last) if (ev := last[r].evidence) is not None]
    return QueryResult(
        name=q.name,
        kind=q.kind,
        truth=Truth.TRUE if ok else Truth.FALSE,
        lines=lines if ok else [],
        detail=summary,
    )
