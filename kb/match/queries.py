"""Evaluating one evidence query against the facts: the evaluator its kind registered
(`kb.match.kinds`, one module per kind)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kb.match.context import Context
from kb.match.kinds import EVALUATORS
from kb.match.results import QueryResult

if TYPE_CHECKING:  # a warm run evaluates the snapshot's records (kb.cache.records)
    from dsl import model as m


def evaluate(q: m.Query, ctx: Context) -> QueryResult:
    return EVALUATORS[q.kind](q, ctx)


__all__ = ["EVALUATORS", "Context", "evaluate"]
