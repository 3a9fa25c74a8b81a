"""Evaluating one evidence query against the facts: the evaluator its kind registered
(`kb.match.kinds`, one module per kind)."""

from __future__ import annotations

from dsl import model as m
from kb.match.context import Context
from kb.match.kinds import EVALUATORS
from kb.match.results import QueryResult


def evaluate(q: m.Query, ctx: Context) -> QueryResult:
    return EVALUATORS[q.kind](q, ctx)


__all__ = ["EVALUATORS", "Context", "evaluate"]
