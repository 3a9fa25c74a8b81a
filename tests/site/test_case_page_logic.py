"""Case pages never contradict their case: "Not this case if…" names only what rules the
case out, never evidence its own clauses need (a query under `not` in a `rule_out` speaks
for the case)."""

from __future__ import annotations

from dsl import model as m
from dsl.api import load_cases
from kb.match.condition import positive_refs
from kb.site.casepage import rule_out_queries


def _needed(case: m.Case) -> set[str]:
    return {
        name
        for c in case.condition.clauses
        if c.role is not m.Role.RULING_OUT
        for name, negated in positive_refs(c.expr)
        if not negated
    }


def test_no_bundled_case_page_lists_its_own_evidence_as_a_rule_out() -> None:
    cases = load_cases(with_env=False).cases
    assert cases
    wrong = {
        c.id: sorted(q.name for q in rule_out_queries(c) if q.name in _needed(c)) for c in cases
    }
    assert {k: v for k, v in wrong.items() if v} == {}
    assert any(rule_out_queries(c) for c in cases)  # the pages do list rule-outs
