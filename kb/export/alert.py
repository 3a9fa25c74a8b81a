"""A case's verdict on one job as set algebra over its log rules: the alert a platform pages on.

Sigma correlations can say "these rules all fired for a job" but not "and this one did not",
so a Sigma correlation fires on near misses that kb's `rule_out` clauses exclude. The query
languages kb exports to can say it (SQL `NOT`, LogQL `unless`, ES|QL `where not`), so each
backend gets one alert query per case: every `require` clause that log evidence can decide,
and not any `rule_out` clause that log evidence can decide. A leaf is "this job logged at
least N lines matching the query's rule"; a query whose verdict depends on ranks (`one`,
`all`, `all-but-one`, a rank) or on an upper count is not a leaf, and a clause holding one is
left to `kb diagnose` as the correlation's description already says.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dsl import model as m
from dsl.explain import describe_expr
from kb.export.correlation import required_parts
from kb.export.rules import (
    CONFIRM,
    LEVELS,
    PRODUCT,
    SERVICE,
    reads_detection,
    rule_id,
    rule_name,
    title,
)


@dataclass(frozen=True)
class Leaf:
    """The job logged at least `min_count` lines the rule `rule` matches. Unknown (kb's
    third value) when the job shipped no line the query reads at all (`query` names it:
    its kinds and `files` make the rule `<rule>/lines`)."""

    rule: str
    query: str
    min_count: int = 1


@dataclass(frozen=True)
class Not:
    operand: JobExpr


@dataclass(frozen=True)
class All:
    operands: tuple[JobExpr, ...]


@dataclass(frozen=True)
class Any_:
    operands: tuple[JobExpr, ...]


JobExpr = Leaf | Not | All | Any_


@dataclass
class Alert:
    """The job-level condition (nothing `required`: no `require` part is log evidence, so
    there is no alert) and the clauses it could not hold, named as the case writes them."""

    case_id: str
    name: str
    required: list[JobExpr] = field(default_factory=list)  # each must be true
    excluded: list[JobExpr] = field(default_factory=list)  # none may be true (rule_out)
    left: list[str] = field(default_factory=list)
    leaves: dict[str, Leaf] = field(default_factory=dict)  # rule name -> its query's leaf
    title: str = ""
    level: str = "medium"

    @property
    def complete(self) -> bool:
        """Log lines decide every clause: the alert says what kb would."""
        return self.expressible and not self.left

    @property
    def description(self) -> str:
        out = (
            f"distkb case `{self.case_id}` for one job: every `require` part that log lines "
            "decide holds and no `rule_out` clause that log lines decide holds."
        )
        if self.left:
            out += f" Left to kb ({CONFIRM}): " + "; ".join(self.left) + "."
        return out

    @property
    def expressible(self) -> bool:
        return bool(self.required)


def job_expr(expr: m.Expr, case: m.Case) -> JobExpr | None:
    """The clause as set algebra over the case's log rules, or None when a part of it is not
    a count of one job's lines (another kind of evidence, a cross-rank scope, `at_least`)."""
    if isinstance(expr, m.Ref):
        q = case.query(expr.name)
        if not isinstance(q, m.LogQuery) or q.scope is not m.Scope.ANY or q.max_count is not None:
            return None
        return Leaf(rule_name(case.id, expr.name), expr.name, max(1, q.min_count))
    if isinstance(expr, m.Not):
        inner = job_expr(expr.operand, case)
        return None if inner is None else Not(inner)
    if isinstance(expr, m.And | m.Or):
        parts = [job_expr(e, case) for e in expr.operands]
        if any(p is None for p in parts):
            return None
        kept = tuple(p for p in parts if p is not None)
        return All(kept) if isinstance(expr, m.And) else Any_(kept)
    return None


def alert_name(case_id: str) -> str:
    """`/` cannot be in a query's name, so the alert's name is no query rule's."""
    return f"{rule_name(case_id)}/alert"


def case_alert(case: m.Case) -> Alert:
    """kb's verdict on one job, as far as the job's log lines can decide it: true when every
    expressible `require` part is true and no expressible `rule_out` clause is true (kb's
    three-valued logic: an unknown rule_out does not exclude)."""
    alert = Alert(
        case_id=case.id,
        name=alert_name(case.id),
        title=title(case.title.en),
        level=LEVELS[case.severity],
    )
    for expr in required_parts(case):
        part = job_expr(expr, case)
        if part is None:
            alert.left.append(f"require `{describe_expr(expr)}`")
        else:
            alert.required.append(part)
    for clause in case.condition.clauses:
        if clause.role is m.Role.RULING_OUT:
            part = job_expr(clause.expr, case)
            if part is None:
                alert.left.append(f"rule_out `{describe_expr(clause.expr)}`")
            else:
                alert.excluded.append(part)
    for said in alert.required + alert.excluded:
        for leaf in leaves(said):
            alert.leaves.setdefault(leaf.rule, leaf)
    return alert


def leaves(expr: JobExpr) -> list[Leaf]:
    if isinstance(expr, Leaf):
        return [expr]
    if isinstance(expr, Not):
        return leaves(expr.operand)
    return [leaf for e in expr.operands for leaf in leaves(e)]


def lines_rule_name(rule: str) -> str:
    return f"{rule}/lines"


def lines_rules(case: m.Case, alert: Alert) -> list[dict[str, Any]]:
    """For each leaf, a Sigma rule for every line its query reads, whatever the line says: a
    leaf is false, not unknown, only where the job shipped such lines. Converted with the
    base rules for the alert queries; not part of the Sigma export."""
    out = []
    for leaf in alert.leaves.values():
        q = case.query(leaf.query)
        assert isinstance(q, m.LogQuery)
        items, parts = reads_detection(q)
        name = lines_rule_name(leaf.rule)
        out.append(
            {
                "title": name,
                "id": rule_id(case.id, f"{leaf.query}/lines"),
                "name": name,
                "status": "experimental",
                "logsource": {"product": PRODUCT, "service": SERVICE},
                "detection": {**items, "condition": " and ".join(parts)},
                "level": "informational",
            }
        )
    return out
