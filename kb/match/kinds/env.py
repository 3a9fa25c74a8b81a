"""`env` queries: a variable in the environment captures (env dumps, NCCL's own lines)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kb.evidence.facts import EvidenceLine
from kb.match.context import Context
from kb.match.regex import search
from kb.match.results import QueryResult, Truth

if TYPE_CHECKING:  # a warm run evaluates the snapshot's records (kb.cache.records)
    from dsl.kinds.env import EnvQuery


def evaluate(q: EnvQuery, ctx: Context) -> QueryResult:
    captures = ctx.facts.env_captures
    if not captures:
        return QueryResult(
            name=q.name,
            kind=q.kind,
            truth=Truth.UNKNOWN,
            detail="no environment capture (env, printenv, NCCL 'set by "
            "environment' lines) was handed over",
        )
    found = [(c, c.variables[q.variable]) for c in captures if q.variable in c.variables]
    lines = [
        EvidenceLine(
            file=c.file, line=c.lines.get(q.variable, 0), text=f"{q.variable}={v}", source="env"
        )
        for c, v in found
    ]
    if q.test == "unset":
        truth = Truth.FALSE if found else Truth.TRUE
        detail = (
            f"{q.variable} is set"
            if found
            else f"{q.variable} is not set in {len(captures)} capture(s)"
        )
        return QueryResult(
            name=q.name, kind=q.kind, truth=truth, lines=lines if found else [], detail=detail
        )
    if q.test == "set":
        ok = [ln for ln in lines]
    elif q.test == "equals":
        ok = [ln for (_c, v), ln in zip(found, lines, strict=True) if v == q.value]
    else:
        regex = q.regex
        ok = [
            ln
            for (_c, v), ln in zip(found, lines, strict=True)
            if regex is not None and search(regex.pattern, v, regex.ignore_case)
        ]
    truth = Truth.TRUE if ok else Truth.FALSE
    detail = ", ".join(ln.text for ln in lines) or f"{q.variable} is not set"
    return QueryResult(name=q.name, kind=q.kind, truth=truth, lines=ok, detail=detail)
