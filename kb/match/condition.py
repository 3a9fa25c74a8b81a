"""Three-valued (Kleene) evaluation of a case's condition over query results."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kb.match.results import Truth

if TYPE_CHECKING:  # by `op`, not class: a warm run reads records (kb.cache.records)
    from dsl import model as m

T, F, U = Truth.TRUE, Truth.FALSE, Truth.UNKNOWN


def evaluate_expr(expr: m.Expr, truths: dict[str, Truth], open_negation: bool = False) -> Truth:
    """The clause's truth. With `open_negation` (a `possible` clause: weak signs), `not x`
    holds when x is unknown: a sign against the case that nobody handed over does not stand
    in the way of naming it as possible; at `likely` and above it must be known false."""
    if expr.op == "ref":
        return truths.get(expr.name, U)
    if expr.op == "not":
        inner = evaluate_expr(expr.operand, truths, open_negation)
        return {T: F, F: T, U: T if open_negation else U}[inner]
    values = [evaluate_expr(o, truths, open_negation) for o in expr.operands]
    if expr.op == "and":
        if F in values:
            return F
        return U if U in values else T
    if expr.op == "or":
        if T in values:
            return T
        return U if U in values else F
    # at_least N of: true if N are true; false if even the unknowns could not reach N
    true = values.count(T)
    unknown = values.count(U)
    if true >= expr.count:
        return T
    if true + unknown < expr.count:
        return F
    return U


def refs(expr: m.Expr) -> list[str]:
    if expr.op == "ref":
        return [expr.name]
    if expr.op == "not":
        return refs(expr.operand)
    return [name for o in expr.operands for name in refs(o)]


def positive_refs(expr: m.Expr, negated: bool = False) -> list[tuple[str, bool]]:
    """(name, negated) for each reference: whether its truth speaks for or against."""
    if expr.op == "ref":
        return [(expr.name, negated)]
    if expr.op == "not":
        return positive_refs(expr.operand, not negated)
    return [pair for o in expr.operands for pair in positive_refs(o, negated)]
