"""`source` queries: what the static reading of the training scripts found."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kb.match.context import MAX_LINES, Context
from kb.match.regex import search
from kb.match.results import QueryResult, Truth

if TYPE_CHECKING:  # a warm run evaluates the snapshot's records (kb.cache.records)
    from dsl.kinds.source import SourceQuery


def evaluate(q: SourceQuery, ctx: Context) -> QueryResult:
    if not ctx.facts.source_findings and not any(
        f.kind == "python-source" for f in ctx.facts.files
    ):
        return QueryResult(
            name=q.name,
            kind=q.kind,
            truth=Truth.UNKNOWN,
            detail="no training script was handed over",
        )
    found = [
        f
        for f in ctx.facts.source_findings
        if (q.finding == "call" or f.finding == q.finding)
        and (q.call is None or search(q.call.pattern, f.call, q.call.ignore_case))
    ]
    # a collective only the main process reaches singles out rank 0; in the else branch,
    # every other rank is waiting, so no single rank is to blame
    ranks = sorted(
        {
            0
            for f in found
            if f.finding == "collective-in-main-only-branch"
            and f.guard.endswith("[main process only]")
        }
    )
    return QueryResult(
        name=q.name,
        kind=q.kind,
        truth=Truth.TRUE if found else Truth.FALSE,
        lines=[f.evidence for f in found][:MAX_LINES],
        ranks=ranks,
        detail=f"{len(found)} finding(s)"
        + (": " + ", ".join(f"{f.call} under {f.guard}" for f in found[:3]) if found else ""),
    )
