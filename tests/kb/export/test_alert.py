"""The alert queries' logic: T/F set algebra must give kb's three-valued verdict on every job.

The algebra is rendered as a Python expression over sets of jobs, the way the backends
render it as SQL, LogQL and ES|QL, and compared with kb's own Kleene evaluation
(`kb.match.condition.evaluate_expr`) on every assignment of true/false/unknown to the leaves.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from dsl import model as m
from dsl.compiler import load_knowledge_base
from dsl.explain import describe_expr
from kb.export.alert import Alert, All, Any_, JobExpr, Leaf, Not, case_alert, job_expr
from kb.export.alert_queries import Algebra, condition
from kb.export.correlation import required_parts
from kb.match.condition import evaluate_expr
from kb.match.results import Truth

LEAVES = ("a", "b", "c")
JOBS = list(itertools.product(list(Truth), repeat=len(LEAVES)))  # job i: its leaves' truths

PY = Algebra(
    true=lambda lf: f"T[{lf.rule!r}]",
    false=lambda lf: f"F[{lf.rule!r}]",
    conj=lambda xs: "(" + " & ".join(xs) + ")",
    disj=lambda xs: "(" + " | ".join(xs) + ")",
    minus=lambda x, y: f"({x} - {y})",
)


def _sets() -> tuple[dict[str, set[int]], dict[str, set[int]]]:
    t = {
        leaf: {i for i, job in enumerate(JOBS) if job[k] is Truth.TRUE}
        for k, leaf in enumerate(LEAVES)
    }
    f = {
        leaf: {i for i, job in enumerate(JOBS) if job[k] is Truth.FALSE}
        for k, leaf in enumerate(LEAVES)
    }
    return t, f


def _expr(e: JobExpr) -> m.Expr:
    if isinstance(e, Leaf):
        return m.Ref(name=e.rule)
    if isinstance(e, Not):
        return m.Not(operand=_expr(e.operand))
    operands = [_expr(x) for x in e.operands]
    return m.And(operands=operands) if isinstance(e, All) else m.Or(operands=operands)


exprs = st.recursive(
    st.sampled_from([Leaf(x, x) for x in LEAVES]),
    lambda inner: st.one_of(
        inner.map(Not),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: All(tuple(xs))),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: Any_(tuple(xs))),
    ),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(
    required=st.lists(exprs, min_size=1, max_size=2),
    excluded=st.lists(exprs, min_size=0, max_size=2),
)
def test_set_algebra_is_kbs_three_valued_verdict(
    required: list[JobExpr], excluded: list[JobExpr]
) -> None:
    alert = Alert(case_id="c", name="c/alert", required=required, excluded=excluded)
    T, F = _sets()
    fired = eval(condition(alert, PY), {"T": T, "F": F})
    for i, job in enumerate(JOBS):
        truths = dict(zip(LEAVES, job, strict=True))
        holds = all(evaluate_expr(_expr(e), truths) is Truth.TRUE for e in required) and not any(
            evaluate_expr(_expr(e), truths) is Truth.TRUE for e in excluded
        )
        assert (i in fired) == holds, (condition(alert, PY), truths)


KB = load_knowledge_base(with_env=False)


def test_every_case_alert_holds_what_log_lines_decide_and_lists_the_rest() -> None:
    """A clause is in the alert exactly when each of its queries is a count of one job's
    lines; every other clause is named in the alert's description."""
    for compiled in KB.cases:
        case = compiled.case
        alert = case_alert(case)
        parts = [("require", e) for e in required_parts(case)] + [
            ("rule_out", c.expr) for c in case.condition.clauses if c.role is m.Role.RULING_OUT
        ]
        for role, expr in parts:
            said = job_expr(expr, case)
            held = alert.required if role == "require" else alert.excluded
            if said is None:
                assert f"{role} `{describe_expr(expr)}`" in alert.left, case.id
            else:
                assert said in held, case.id
        assert len(alert.required) + len(alert.excluded) + len(alert.left) == len(parts)
        for leaf_rule, leaf in alert.leaves.items():
            q = case.query(leaf.query)
            assert isinstance(q, m.LogQuery) and q.scope is m.Scope.ANY and q.max_count is None
            assert leaf_rule.endswith(f".{leaf.query}")
        if alert.left:
            assert all(part in alert.description for part in alert.left), case.id


def test_a_rank_scoped_query_is_not_a_leaf() -> None:
    case = next(
        c.case
        for c in KB.cases
        if any(isinstance(q, m.LogQuery) and q.scope is not m.Scope.ANY for q in c.case.queries)
    )
    scoped = next(
        q for q in case.queries if isinstance(q, m.LogQuery) and q.scope is not m.Scope.ANY
    )
    assert job_expr(m.Ref(name=scoped.name), case) is None
    assert job_expr(m.Not(operand=m.Ref(name=scoped.name)), case) is None


def test_loki_and_esql_alerts_say_rule_outs_in_their_own_words() -> None:
    import pytest

    pytest.importorskip("sigma.backends.loki", reason="extra `fleet`")
    from kb.export.alert_queries import convert_case
    from kb.export.sigma import case_rules

    compiled = KB.get("docker-shm-too-small-nccl")
    assert compiled is not None
    rules = case_rules(compiled.case, "x")
    assert rules.alert is not None
    loki = {q.rule_name: q for q in convert_case("loki", rules).queries}
    esql = {q.rule_name: q for q in convert_case("elasticsearch", rules).queries}
    name = f"distkb.{compiled.case.id}/alert"
    assert not loki[name].error and not esql[name].error
    assert loki[name].query.count("unless") >= len(rules.alert.excluded)
    assert "count_over_time(" in loki[name].query and "[24h]" in loki[name].query
    lines = esql[name].query.split("\n")  # not splitlines: \f and \v are in the strings
    assert lines[0].startswith("from ") and lines[-1] == "| keep job"
    assert lines[2].startswith("| stats ") and lines[2].endswith(" by job")
    assert " and not (" in lines[3]
