"""A case's match block as a Sigma correlation, and the list of what Sigma cannot say.

kb confirms a case when every `require` clause holds and no `rule_out` does. Sigma can
say "these rules all fired for one job within a time span" (a `temporal` correlation) or
"this rule fired N times for one job" (`event_count`). So each `require` clause made of log
queries becomes one rule (an `or` of queries is one rule with several selections), and the
correlation asks for all of them per job. Everything else (negation, rule_out, other kinds
of evidence, cross-rank scopes, counts, the likely and possible levels) is listed in the
correlation's description to be confirmed with `kb diagnose`, never dropped silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dsl import model as m
from dsl.explain import describe_expr, describe_query
from kb.export import fields as f
from kb.export.rules import (
    CONFIRM,
    FALSE_POSITIVES,
    LEVELS,
    PRODUCT,
    SERVICE,
    common,
    left_to_kb,
    query_detection,
    rule_id,
    rule_name,
    title,
)
from kb.match.condition import refs

TIMESPAN = "24h"  # a job's evidence: the first failure and the timeouts it causes, hours apart


@dataclass
class CaseCorrelation:
    """The clause rules, the correlation over them (None when no clause is expressible),
    and what was left to kb."""

    clause_rules: list[dict[str, Any]] = field(default_factory=list)
    correlation: dict[str, Any] | None = None
    left: list[str] = field(default_factory=list)
    # per expressible clause: the log queries any of which makes it hold
    clauses: list[list[str]] = field(default_factory=list)


def _log_only(expr: m.Expr, case: m.Case) -> list[str] | None:
    """The log queries of a clause that is a query or an `or` of queries, else None."""
    if isinstance(expr, m.Ref):
        q = case.query(expr.name)
        return [expr.name] if isinstance(q, m.LogQuery) else None
    if isinstance(expr, m.Or):
        names: list[str] = []
        for operand in expr.operands:
            inner = _log_only(operand, case)
            if inner is None:
                return None
            names.extend(inner)
        return list(dict.fromkeys(names))
    return None


def required_parts(case: m.Case) -> list[m.Expr]:
    """The `require` clauses, an `and` split into its operands (each must hold)."""
    parts: list[m.Expr] = []
    pending = [c.expr for c in case.condition.clauses if c.role is m.Role.REQUIRED]
    while pending:
        expr = pending.pop(0)
        if isinstance(expr, m.And):
            pending[:0] = list(expr.operands)
        else:
            parts.append(expr)
    return parts


def _clause_rule(case: m.Case, index: int, names: list[str], site: str) -> dict[str, Any]:
    detection: dict[str, Any] = {}
    conditions = []
    for i, name in enumerate(names, 1):
        q = case.query(name)
        assert isinstance(q, m.LogQuery)
        items, condition = query_detection(q, prefix=f"q{i}_")
        detection.update(items)
        conditions.append(f"({condition})" if len(names) > 1 else condition)
    detection["condition"] = " or ".join(conditions)
    key = f"require-{index}"
    return {
        "title": title(f"{case.id}: requires {' or '.join(names)}"),
        "id": rule_id(case.id, key),
        "name": rule_name(case.id, key),
        **common(case, site),
        "description": f"One of the log evidence {', '.join(names)} of the distkb case "
        f"`{case.id}` (a `require` clause of its match block).",
        "logsource": {"product": PRODUCT, "service": SERVICE},
        "detection": detection,
        "falsepositives": [FALSE_POSITIVES],
        "level": LEVELS[case.severity],
    }


def _left_for_queries(case: m.Case, exprs: list[m.Expr]) -> list[str]:
    out: list[str] = []
    for name in dict.fromkeys(n for e in exprs for n in refs(e)):
        q = case.query(name)
        if q is None:
            continue
        if isinstance(q, m.LogQuery):
            out.extend(f"`{name}`: {what}" for what in left_to_kb(q))
        else:
            out.append(f"`{name}` ({q.kind} evidence): {describe_query(q)}")
    return out


def correlate(case: m.Case, site: str) -> CaseCorrelation:
    result = CaseCorrelation()
    expressed: list[m.Expr] = []
    for expr in required_parts(case):
        names = _log_only(expr, case)
        if names is None:
            result.left.append(
                f"require `{describe_expr(expr)}`: needs evidence or logic a log rule cannot hold"
            )
            continue
        expressed.append(expr)
        result.clauses.append(names)
    for clause in case.condition.clauses:
        text = describe_expr(clause.expr)
        if clause.role is m.Role.RULING_OUT:
            result.left.append(
                f"rule_out `{text}`: Sigma correlations cannot say 'and not' (the alert "
                f"query `{rule_name(case.id)}/alert` of the duckdb, loki and elasticsearch "
                "exports does, where log lines decide the clause)"
            )
        elif clause.role in (m.Role.LIKELY, m.Role.POSSIBLE):
            result.left.append(f"{clause.role.value} `{text}`: kb's weaker levels are not exported")
    result.left.extend(_left_for_queries(case, [c.expr for c in case.condition.clauses]))
    if not result.clauses:
        return result
    rule_names = []
    for i, names in enumerate(result.clauses, 1):
        if len(names) == 1:
            rule_names.append(rule_name(case.id, names[0]))  # the query's own rule
        else:
            rule = _clause_rule(case, i, names, site)
            result.clause_rules.append(rule)
            rule_names.append(rule["name"])
    if len(rule_names) == 1:
        body: dict[str, Any] = {
            "type": "event_count",
            "rules": rule_names,
            "group-by": list(f.GROUP_BY),
            "timespan": TIMESPAN,
            "condition": {"gte": 1},
            "generate": True,  # the backends convert the base rules too
        }
    else:
        body = {
            "type": "temporal",
            "rules": rule_names,
            "group-by": list(f.GROUP_BY),
            "timespan": TIMESPAN,
            "generate": True,
        }
    description = (
        f"{case.summary.en.strip()} Fires when every `require` clause of the distkb "
        f"case `{case.id}` holds in one job's logs."
    )
    if result.left:
        description += f" Not expressed in Sigma ({CONFIRM}): " + "; ".join(result.left) + "."
    result.correlation = {
        "title": title(case.title.en),
        "id": rule_id(case.id),
        "name": rule_name(case.id),
        **common(case, site),
        "description": " ".join(description.split()),
        "correlation": body,
        "level": LEVELS[case.severity],
    }
    return result
