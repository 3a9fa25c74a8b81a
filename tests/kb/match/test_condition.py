"""Kleene three-valued logic: unknown evidence never turns into a match by itself."""

from __future__ import annotations

import pytest

from dsl import model as m
from kb.match.condition import evaluate_expr
from kb.match.results import Truth

T, F, U = Truth.TRUE, Truth.FALSE, Truth.UNKNOWN


def ref(name: str) -> m.Ref:
    return m.Ref(name=name)


@pytest.mark.parametrize(
    ("a", "b", "and_", "or_"),
    [(T, T, T, T), (T, F, F, T), (T, U, U, T), (F, U, F, U), (U, U, U, U), (F, F, F, F)],
)
def test_and_or(a: Truth, b: Truth, and_: Truth, or_: Truth) -> None:
    truths = {"a": a, "b": b}
    assert evaluate_expr(m.And(operands=[ref("a"), ref("b")]), truths) is and_
    assert evaluate_expr(m.Or(operands=[ref("a"), ref("b")]), truths) is or_


def test_not() -> None:
    assert evaluate_expr(m.Not(operand=ref("a")), {"a": T}) is F
    assert evaluate_expr(m.Not(operand=ref("a")), {"a": F}) is T
    assert evaluate_expr(m.Not(operand=ref("a")), {"a": U}) is U


def test_a_possible_clause_reads_an_unknown_sign_against_as_absent() -> None:
    """`possible a and not b`: a user who says only `a`, with no log to show `b`, is named as
    possible; a known `b` still stops it. At likely and above unknown stays unknown."""
    expr = m.And(operands=[ref("a"), m.Not(operand=ref("b"))])
    assert evaluate_expr(expr, {"a": T, "b": U}, open_negation=True) is T
    assert evaluate_expr(expr, {"a": T, "b": T}, open_negation=True) is F
    assert evaluate_expr(expr, {"a": U, "b": U}, open_negation=True) is U
    assert evaluate_expr(expr, {"a": T, "b": U}) is U


@pytest.mark.parametrize(
    ("values", "expected"),
    [((T, T, F), T), ((T, F, F), F), ((T, U, F), U), ((U, U, F), U), ((F, F, U), F)],
)
def test_at_least_two(values: tuple[Truth, ...], expected: Truth) -> None:
    names = [f"q{i}" for i in range(len(values))]
    expr = m.AtLeast(count=2, operands=[ref(n) for n in names])
    assert evaluate_expr(expr, dict(zip(names, values, strict=True))) is expected


def test_undefined_name_is_unknown() -> None:
    assert evaluate_expr(ref("missing"), {}) is U
