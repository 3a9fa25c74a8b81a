"""`stack` queries: a frame on the dumped stacks, held to the query's scope of ranks."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from dsl.choices import Scope
from kb.evidence.facts import EvidenceLine
from kb.match.context import MAX_LINES, NO_RANK, Context
from kb.match.regex import search
from kb.match.results import QueryResult, Truth

if TYPE_CHECKING:  # a warm run evaluates the snapshot's records (kb.cache.records)
    from dsl.kinds.stack import StackQuery


def evaluate(q: StackQuery, ctx: Context) -> QueryResult:
    stacks = ctx.facts.stacks
    if not stacks:
        return QueryResult(
            name=q.name,
            kind=q.kind,
            truth=Truth.UNKNOWN,
            detail="no stack dump (py-spy dump, faulthandler) was handed over",
        )
    hit_ranks: dict[int, EvidenceLine] = {}
    lines = []
    for thread in stacks:
        for frame in thread.frames:
            text = f"{frame.function} ({frame.file}:{frame.line})"
            if search(q.frame.pattern, text, q.frame.ignore_case):
                lines.append(
                    dataclasses.replace(thread.evidence, text=f"{thread.evidence.text} → {text}")
                )
                hit_ranks[thread.rank if thread.rank is not None else NO_RANK] = lines[-1]
                break
    ranked = sorted(r for r in hit_ranks if r != NO_RANK)
    stack_ranks = {t.rank for t in stacks if t.rank is not None}
    if q.scope is Scope.ANY:
        ok = bool(hit_ranks)
    elif q.scope is Scope.RANK:
        ok = q.rank in hit_ranks
        ranked = [q.rank] if ok and q.rank is not None else []
    elif q.scope is Scope.ALL_BUT_ONE:
        silent = stack_ranks - set(ranked)
        ok = len(stack_ranks) >= 2 and len(silent) == 1 and bool(ranked)
        ranked = sorted(silent)
    elif q.scope is Scope.ONE:
        if len(stack_ranks) < 2:
            return QueryResult(
                name=q.name,
                kind=q.kind,
                truth=Truth.UNKNOWN,
                detail="stacks of at least two ranks are needed to tell one "
                f"rank apart ({len(stack_ranks)} given)",
            )
        ok = len(ranked) == 1
    else:
        ok = len(stack_ranks) >= 2 and stack_ranks <= set(ranked)
    return QueryResult(
        name=q.name,
        kind=q.kind,
        truth=Truth.TRUE if ok else Truth.FALSE,
        lines=lines[:MAX_LINES] if ok else [],
        ranks=ranked if ok else [],
        detail=f"frame found on {len(hit_ranks)} of {len(stacks)} stack(s)",
    )
