"""CollectiveLog keeps every op but evidence only where a report can show it."""

from __future__ import annotations

import json
from typing import Any

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


def _plog_ops(file_rank: int | None, lines: list[bytes]) -> list[dict[str, Any]]:
    """Feeds entry lines to a PlogSource the way the reader does (raw path first)."""
    from kb.evidence.facts import dump_json
    from kb.evidence.sources.plog import PlogSource

    ctx = FileContext(display="plog-9.log", hints=PathHints(), limits=Limits(), file_rank=file_rank)
    src = PlogSource(ctx)
    for no, raw in enumerate(lines, start=1):
        if not src.skip("entry", no, raw):
            src.on_line("entry", ctx.line(no, raw))
    src.finish()
    return [json.loads(dump_json(c)) for c in ctx.facts.collectives]


def test_entries_read_from_bytes_equal_entries_read_from_decoded_lines() -> None:
    """A one-rank plog records its entry lines without decoding them (`PlogSource.skip`);
    the ops, their places and the evidence kept must be what the decoded path gives."""
    ops = [("AllReduce", "float32"), ("Broadcast", "int64"), ("AllGatherInner", "bfloat16")]
    lines = [
        (
            f"[INFO] HCCL(7,python):2025-10-24-11:10:{i % 60:02d}.000.001 [op.cc:5] [7]"
            f"Entry-Hccl{ops[i % 3][0]}:tag[t], sendBuf[0x1], recvcount[9], count[{100 + i}], "
            f"dataType[{ops[i % 3][1]}], streamId[5], deviceId[2]"
        ).encode()
        for i in range(40)
    ]
    lines.insert(5, b"[INFO] HCCL(7,python): [7]Entry-HcclGetRankId:rank[0], deviceId[2]")
    lines.insert(9, b"[INFO] HCCL(7,python): [7]Entry-HcclSetGlobalWorkSpace:deviceId[2]")
    fast, slow = _plog_ops(2, lines), _plog_ops(None, lines)
    assert fast == slow and len(fast) == 40
    first = fast[0]
    assert (first["rank"], first["op"], first["seq"], first["count"], first["dtype"]) == (
        2, "allreduce", 1, 100, "float32",
    )  # fmt: skip
    assert first["evidence"]["text"] == lines[0].decode() and first["evidence"]["rank"] == 2
    assert sum(1 for c in fast if c["evidence"]) == 2 * KEEP  # the tail holds the last of each op
