"""CollectiveLog keeps every op but evidence only where a report can show it."""

from __future__ import annotations

from kb.evidence.context import FileContext
from kb.evidence.limits import Limits
from kb.evidence.ranks import PathHints
from kb.evidence.sources.collectives import KEEP, CollectiveLog


def _log(ops: list[tuple[int, str]]) -> FileContext:
    ctx = FileContext(display="plog-1.log", hints=PathHints(), limits=Limits())
    log = CollectiveLog(ctx, "plog")
    for no, (rank, op) in enumerate(ops, start=1):
        line = ctx.line(no, f"[INFO] HCCL(1,python): [{no}]Entry-Hccl{op}: rank[{rank}]")
        log.add(line, op.lower(), no, 8, "float32")
    log.finish()
    return ctx


def test_every_op_is_kept_in_order_with_its_rank_and_place() -> None:
    ops = [(r, "AllReduce") for _ in range(50) for r in (0, 1)]
    facts = _log(ops).facts
    assert [(c.rank, c.seq) for c in facts.collectives] == [
        (r, i + 1) for i, (r, _) in enumerate(ops)
    ]
    assert [(c.file, c.line) for c in facts.collectives] == [
        ("plog-1.log", no) for no in range(1, len(ops) + 1)
    ]


def test_evidence_only_at_both_ends_of_each_rank_and_for_the_last_of_each_op() -> None:
    ops = [(0, "AllReduce")] * 20 + [(0, "Broadcast")] + [(0, "AllReduce")] * 20
    facts = _log(ops).facts
    with_ev = [c.seq for c in facts.collectives if c.evidence is not None]
    head = list(range(1, KEEP + 1))
    tail = list(range(len(ops) - KEEP + 1, len(ops) + 1))
    assert with_ev == [*head, 21, *tail]  # 21: the only (so the last) broadcast
    assert all(c.evidence is None for c in facts.collectives if c.seq not in with_ev)
    last = facts.collectives[-1]
    assert last.evidence is not None and last.evidence.line == len(ops) and last.evidence.rank == 0


def test_a_full_log_stops_adding() -> None:
    ctx = FileContext(display="x.log", hints=PathHints(), limits=Limits(collectives_per_file=3))
    log = CollectiveLog(ctx, "plog")
    for no in range(1, 10):
        log.add(ctx.line(no, f"Entry-HcclAllReduce: rank[0] {no}"), "allreduce", no, None, None)
    log.finish()
    assert [c.seq for c in ctx.facts.collectives] == [1, 2, 3]
