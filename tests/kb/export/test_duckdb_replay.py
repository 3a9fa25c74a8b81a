"""Every exported rule, converted by pySigma's DuckDB backend, run over every fixture of its
case shipped as JSON lines: the rules must hit every line `kb diagnose` shows, and the case's
alert query (require parts minus rule_out clauses, as set algebra over the rules) must fire
wherever kb confirms the case and stay silent on the negatives.

The one exception, stated per fixture: a negative whose difference from the case is evidence
no log line carries (a package, a stack, a source finding, a cross-rank scope), which the
alert's description lists as left to `kb diagnose`. Each such firing must be explained by a
clause of that kind that kb finds against the case, or the test fails.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("duckdb", reason="extra `fleet` (pip install 'distkb[fleet]')")
pytest.importorskip("sigma_backend_duckdb", reason="extra `fleet`")

import duckdb

from dsl import model as m
from dsl.compiler import CompiledCase, load_knowledge_base
from dsl.explain import describe_expr
from kb.export.alert import alert_name, job_expr
from kb.export.alert_queries import convert_case
from kb.export.correlation import required_parts
from kb.export.replay import alerted_jobs, load_jobs, load_logs, run
from kb.export.rules import rule_name
from kb.export.sigma import case_rules
from kb.match.condition import evaluate_expr
from kb.match.diagnose import read_bundle, run_case
from kb.match.results import Truth, Verdict

pytestmark = pytest.mark.slow  # replays every fixture of every case through every exported rule

KB = load_knowledge_base(with_env=False)


def _fixtures(case: m.Case, kind: str) -> list[Path]:
    folder = Path(case.folder) / "fixtures" / kind
    return sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


def _why_it_may_fire(case: m.Case, verdict: Verdict) -> list[str]:
    """What kb holds against the case that the alert cannot see: a `require` part or a
    `rule_out` clause made of other evidence, a cross-rank scope or an upper count."""
    truths = {q.name: q.truth for q in verdict.queries}
    reasons = [
        f"rule_out {c.text}: not log evidence"
        for c in verdict.clauses
        if c.role == "rule_out" and c.truth is Truth.TRUE and _unsayable(c.text, case)
    ]
    for expr in required_parts(case):
        if job_expr(expr, case) is None and evaluate_expr(expr, truths) is not Truth.TRUE:
            reasons.append(f"require {describe_expr(expr)}: not log evidence, does not hold")
    return reasons


def _unsayable(text: str, case: m.Case) -> bool:
    clause = next(
        c
        for c in case.condition.clauses
        if c.role is m.Role.RULING_OUT and describe_expr(c.expr) == text
    )
    return job_expr(clause.expr, case) is None


@pytest.mark.parametrize("compiled", KB.cases, ids=lambda c: c.case.id)
def test_rules_hit_decisive_lines_and_alert_agrees(compiled: CompiledCase) -> None:
    case = compiled.case
    rules = case_rules(case, "http://127.0.0.1:8000")
    conversion = convert_case("duckdb", rules)
    assert not conversion.errors
    assert rules.alert is not None
    names = {q.rule_name for q in conversion.queries}
    alerting = alert_name(case.id) in names
    assert alerting == (rules.correlation.correlation is not None or bool(rules.alert.required))
    con = duckdb.connect()
    problems: list[str] = []
    holds: dict[str, bool] = {}  # job -> kb: every require clause true, no rule_out true
    folders: dict[str, Path] = {}
    for kind in ("positive", "negative"):
        for fixture in _fixtures(case, kind):
            verdict = run_case(compiled, read_bundle(KB, str(fixture)))
            folders[f"{kind}/{fixture.name}"] = fixture
            holds[f"{kind}/{fixture.name}"] = _kb_holds(verdict)
            load_logs(con, fixture, "job-1")
            replay = run(con, conversion)
            fired = replay.fired.get(alert_name(case.id), False)
            where = f"{kind}/{fixture.name}"
            if kind == "positive":
                for query, ln in verdict.evidence:
                    if not isinstance(case.query(query), m.LogQuery):
                        continue
                    if (ln.file, ln.line) not in replay.hits[rule_name(case.id, query)]:
                        problems.append(f"{where}: rule {query} misses {ln.file}:{ln.line}")
                if verdict.level == m.Level.CONFIRMED.value and alerting and not fired:
                    problems.append(f"{where}: kb confirms, the alert stays silent")
            elif fired and rules.alert.complete:
                problems.append(f"{where}: a complete alert fires on a negative")
            elif fired and not _why_it_may_fire(case, verdict):
                problems.append(
                    f"{where}: the alert fires and nothing kb holds against the case "
                    f"explains it (kb: {verdict.level})"
                )
    if alerting:
        # the whole case as one fleet: every fixture a job of one table, grouped by job
        load_jobs(con, folders)
        fired_jobs = alerted_jobs(con, conversion, alert_name(case.id))
        expected = {job for job, ok in holds.items() if ok}
        if rules.alert.complete and fired_jobs != expected:
            problems.append(f"one table: alert {sorted(fired_jobs)} != kb {sorted(expected)}")
        if not expected <= fired_jobs:
            problems.append(f"one table: kb holds, no alert: {sorted(expected - fired_jobs)}")
    assert not problems, "\n".join(problems)


def _kb_holds(verdict: Verdict) -> bool:
    return all(c.truth is Truth.TRUE for c in verdict.clauses if c.role == "require") and not any(
        c.truth is Truth.TRUE for c in verdict.clauses if c.role == "rule_out"
    )


def test_a_rule_out_silences_the_alert_where_the_sigma_correlation_fires() -> None:
    """Sigma has no "and not": its correlation fires on a near miss that a rule_out
    separates; the alert query, which says the rule_out, stays silent as kb does."""
    compiled = KB.get("docker-shm-too-small-nccl")
    assert compiled is not None
    fixture = Path(compiled.case.folder) / "fixtures/negative/a100x4-shm-open-permission-denied"
    con = duckdb.connect()
    load_logs(con, fixture, "job-1")
    replay = run(con, convert_case("duckdb", case_rules(compiled.case, "x")))
    verdict = run_case(compiled, read_bundle(KB, str(fixture)))
    assert replay.fired[rule_name(compiled.case.id)]
    assert not replay.fired[alert_name(compiled.case.id)]
    assert verdict.level == "none"
