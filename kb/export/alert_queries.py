"""One alert query per case in each backend's own language, built from pySigma's conversions.

The set algebra of `kb.export.alert` is rendered with two sets per sub-expression, the jobs
where it is true (T) and the jobs where it is false (F), which is kb's three-valued logic
without a null: a leaf is true where the job logged at least N matching lines, false where
the job logged lines the query reads but fewer matches, unknown elsewhere; `not` swaps T
and F, `and`/`or` combine them as Kleene does. The alert is T of every `require` part minus
T of any `rule_out` clause. Each leaf's condition is pySigma's own conversion of the
query's rule (and of its `<rule>/lines` rule, the lines it reads), so escaping and field
names stay the backend's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kb.export import fields as f
from kb.export.alert import Alert, All, JobExpr, Leaf, Not, lines_rule_name
from kb.export.backends import Conversion, Converted, convert, loki_limit_note
from kb.export.rules import CONFIRM, rule_id
from kb.export.sigma import CaseRules

BACKENDS = ("duckdb", "loki", "elasticsearch")
WINDOW = "24h"  # as the correlations' timespan: a job's evidence, hours apart


@dataclass
class Algebra:
    """How a backend says T(leaf), F(leaf), and, or, and "minus"."""

    true: Callable[[Leaf], str]
    false: Callable[[Leaf], str]
    conj: Callable[[list[str]], str]
    disj: Callable[[list[str]], str]
    minus: Callable[[str, str], str]


def _jobs(e: JobExpr, a: Algebra, where: bool = True) -> str:
    """The jobs where `e` is true (`where`) or false: `not` swaps the two; T(and) and F(or)
    are intersections, T(or) and F(and) unions (Kleene's rules as sets)."""
    if isinstance(e, Leaf):
        return a.true(e) if where else a.false(e)
    if isinstance(e, Not):
        return _jobs(e.operand, a, not where)
    parts = [_jobs(x, a, where) for x in e.operands]
    return a.conj(parts) if isinstance(e, All) == where else a.disj(parts)


def condition(alert: Alert, a: Algebra) -> str:
    """T of every required part, minus T of any rule_out clause."""
    out = a.conj([_jobs(e, a) for e in alert.required])
    if alert.excluded:
        out = a.minus(out, a.disj([_jobs(e, a) for e in alert.excluded]))
    return out


def _joined(word: str) -> Callable[[list[str]], str]:
    return lambda xs: xs[0] if len(xs) == 1 else "(" + f" {word} ".join(xs) + ")"


def _where(query: str, prefix: str) -> str:
    m_ = re.match(prefix, query, re.S)
    if m_ is None:
        raise ValueError(f"unexpected conversion {query[:80]!r}")
    return query[m_.end() :]


class _Columns:
    """Per-job counts the SQL and ES|QL alerts compute once: q<i> the lines a leaf's rule
    matches, e<j> the lines it reads (leaves reading the same lines share one)."""

    def __init__(self, alert: Alert, reads: dict[str, str]) -> None:
        self.q_index = {rule: i for i, rule in enumerate(alert.leaves, 1)}
        distinct = list(dict.fromkeys(reads[r] for r in alert.leaves))
        self.e_index = {rule: distinct.index(reads[rule]) + 1 for rule in alert.leaves}
        self.reads = distinct  # e<j> counts the lines of reads[j - 1]

    def q(self, leaf: Leaf) -> str:
        return f"distkb_q{self.q_index[leaf.rule]}"

    def e(self, leaf: Leaf) -> str:
        return f"distkb_e{self.e_index[leaf.rule]}"

    def algebra(self, and_: str, or_: str, not_: str) -> Algebra:
        return Algebra(
            true=lambda lf: f"{self.q(lf)} >= {lf.min_count}",
            false=lambda lf: f"({self.e(lf)} > 0 {and_} {self.q(lf)} < {lf.min_count})",
            conj=_joined(and_),
            disj=_joined(or_),
            minus=lambda x, y: f"({x} {and_} {not_} {y})",
        )


def _reads(alert: Alert, lines: dict[str, str], prefix: str) -> dict[str, str]:
    return {rule: _where(lines[lines_rule_name(rule)], prefix) for rule in alert.leaves}


def _duckdb(alert: Alert, base: dict[str, str], lines: dict[str, str]) -> str:
    prefix = r"SELECT \* FROM logs WHERE "
    cols = _Columns(alert, _reads(alert, lines, prefix))
    counts = [
        f"count(*) FILTER (WHERE {_where(base[rule], prefix)}) AS {cols.q(leaf)}"
        for rule, leaf in alert.leaves.items()
    ]
    counts += [f"count(*) FILTER (WHERE {c}) AS distkb_e{j}" for j, c in enumerate(cols.reads, 1)]
    body = ",\n    ".join(counts)
    where = condition(alert, cols.algebra("AND", "OR", "NOT"))
    return (
        f"WITH counts AS (\n  SELECT {f.JOB},\n    {body}\n  FROM logs GROUP BY {f.JOB}\n)\n"
        f"SELECT {f.JOB} FROM counts WHERE {where}"
    )


def _esql(alert: Alert, base: dict[str, str], lines: dict[str, str]) -> str:
    prefix = r"from (?P<source>.*?) \| where "
    first = next(iter(base.values()))
    source = re.match(prefix, first, re.S)
    if source is None:
        raise ValueError(f"unexpected conversion {first[:80]!r}")
    cols = _Columns(alert, _reads(alert, lines, prefix))
    columns = [(cols.q(leaf), _where(base[rule], prefix)) for rule, leaf in alert.leaves.items()]
    columns += [(f"distkb_e{j}", c) for j, c in enumerate(cols.reads, 1)]
    evals = ", ".join(f"{col} = case({c}, 1, 0)" for col, c in columns)
    stats = ", ".join(f"{col} = sum({col})" for col, _ in columns)
    where = condition(alert, cols.algebra("and", "or", "not"))
    return (
        f"from {source.group('source')}\n| eval {evals}\n"
        f"| stats {stats} by {f.JOB}\n| where {where}\n| keep {f.JOB}"
    )


def _loki(alert: Alert, base: dict[str, str], lines: dict[str, str]) -> str:
    def count(query: str) -> str:
        return f"sum by ({f.JOB}) (count_over_time({query} [{WINDOW}]))"

    def true(lf: Leaf) -> str:
        return f"({count(base[lf.rule])} >= {lf.min_count})"

    algebra = Algebra(
        true=true,
        false=lambda lf: f"({count(lines[lines_rule_name(lf.rule)])} unless {true(lf)})",
        conj=_joined("and"),
        disj=_joined("or"),
        minus=lambda x, y: f"({x} unless {y})",
    )
    return condition(alert, algebra)


RENDER = {"duckdb": _duckdb, "elasticsearch": _esql, "loki": _loki}


def alert_query(
    backend: str, alert: Alert, lines_rules: list[dict[str, Any]], base: list[Converted]
) -> Converted | None:
    """The case's alert in `backend`, from the base rules' conversions (None: no `require`
    part is log evidence, so there is nothing a log platform can alert on)."""
    if not alert.expressible or backend not in RENDER:
        return None
    item = Converted(
        rule_name=alert.name,
        rule_id=rule_id(alert.case_id, "/alert"),
        correlation=True,
        note="complete: log lines decide every clause"
        if alert.complete
        else f"partial, {CONFIRM}: " + "; ".join(alert.left),
    )
    converted = {q.rule_name: q.query for q in base if q.query and not q.correlation}
    lines = {q.rule_name: q.query for q in convert(backend, lines_rules).queries if q.query}
    missing = [r for r in alert.leaves if r not in converted or lines_rule_name(r) not in lines]
    if missing:
        item.error = f"rules not converted: {', '.join(missing)}"
        return item
    try:
        item.query = RENDER[backend](alert, converted, lines)
    except ValueError as exc:
        item.error = str(exc)
    if backend == "loki" and (limit := loki_limit_note(item.query)):
        item.note += f"; {limit}"
    return item


def convert_case(backend: str, rules: CaseRules) -> Conversion:
    """A case's rules converted, with its alert query last where the backend can say it."""
    conversion = convert(backend, rules.rules)
    if rules.alert is not None:
        item = alert_query(backend, rules.alert, rules.lines_rules, conversion.queries)
        if item is not None:
            conversion.queries.append(item)
    return conversion
