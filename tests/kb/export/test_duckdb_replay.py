"""Every exported rule, converted by pySigma's DuckDB backend, run over every fixture of its
case shipped as JSON lines: the rules must hit the lines `kb diagnose` shows, and the case's
correlation must fire where kb confirms the case and stay silent on the negatives, except
where the difference is one the correlation's description lists ("confirm with kb diagnose").

How the near misses are treated, honestly: Sigma has no "and not", so a negative that only
a `rule_out` separates from the case fires the correlation; so does one whose difference is
non-log evidence (a package, a stack, a source finding) or a cross-rank scope/count the rule
cannot count. Each such firing must be explained by one of those, or the test fails.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("duckdb", reason="extra `fleet` (pip install 'distkb[fleet]')")
pytest.importorskip("sigma_backend_duckdb", reason="extra `fleet`")

import duckdb

from dsl import model as m
from dsl.compiler import CompiledCase, load_knowledge_base
from kb.export.backends import convert
from kb.export.correlation import _log_only, _required_parts
from kb.export.replay import load_logs, run
from kb.export.rules import rule_name
from kb.export.sigma import case_rules
from kb.match.condition import evaluate_expr
from kb.match.diagnose import read_bundle, run_case
from kb.match.results import Truth, Verdict

KB = load_knowledge_base(with_env=False)


def _fixtures(case: m.Case, kind: str) -> list[Path]:
    folder = Path(case.folder) / "fixtures" / kind
    return sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


def _why_it_may_fire(case: m.Case, verdict: Verdict) -> list[str]:
    """What kb holds against the case that the correlation's description lists as left to kb."""
    truths = {q.name: q.truth for q in verdict.queries}
    reasons = [
        f"rule_out {c.text}"
        for c in verdict.clauses
        if c.role == "rule_out" and c.truth is Truth.TRUE
    ]
    for expr in _required_parts(case):
        if _log_only(expr, case) is None and evaluate_expr(expr, truths) is not Truth.TRUE:
            reasons.append("a require clause of non-log evidence does not hold")
        for name in _log_only(expr, case) or []:
            q = case.query(name)
            counted = isinstance(q, m.LogQuery) and (
                q.scope is not m.Scope.ANY or q.min_count > 1 or q.max_count is not None
            )
            if counted and truths.get(name) is not Truth.TRUE:
                reasons.append(f"{name}: cross-rank scope or count")
    return reasons


def _quoted_in_prose(records: dict[tuple[str, int], tuple[str, str]], file: str, line: int) -> bool:
    """kb reads output a person quoted in `backticks` inside their notes; a shipper sends the
    notes as prose (kind notes), which rules without `sources [notes]` do not read."""
    kind, text = records.get((file, line), ("", ""))
    return kind == "notes" and "`" in text


@pytest.mark.parametrize("compiled", KB.cases, ids=lambda c: c.case.id)
def test_rules_hit_decisive_lines_and_correlation_agrees(compiled: CompiledCase) -> None:
    case = compiled.case
    rules = case_rules(case, "http://127.0.0.1:8000")
    conversion = convert("duckdb", rules.rules)
    assert not conversion.errors
    con = duckdb.connect()
    problems: list[str] = []
    for kind in ("positive", "negative"):
        for fixture in _fixtures(case, kind):
            verdict = run_case(compiled, read_bundle(KB, str(fixture)))
            load_logs(con, fixture, "job-1")
            shipped = {
                (r[0], r[1]): (r[2], r[3])
                for r in con.execute("SELECT file, line_number, kind, line FROM logs").fetchall()
            }
            replay = run(con, conversion)
            fired = replay.fired.get(rule_name(case.id), False)
            where = f"{kind}/{fixture.name}"
            if kind == "positive":
                for query, ln in verdict.evidence:
                    if not isinstance(case.query(query), m.LogQuery):
                        continue
                    hit = (ln.file, ln.line) in replay.hits[rule_name(case.id, query)]
                    if not hit and not _quoted_in_prose(shipped, ln.file, ln.line):
                        problems.append(f"{where}: rule {query} misses {ln.file}:{ln.line}")
                confirmed = verdict.level == m.Level.CONFIRMED.value
                if confirmed and rules.correlation.correlation and not fired:
                    quoted = [
                        ln
                        for _, ln in verdict.evidence
                        if _quoted_in_prose(shipped, ln.file, ln.line)
                    ]
                    if not quoted:
                        problems.append(f"{where}: kb confirms, the correlation stays silent")
            elif fired and not _why_it_may_fire(case, verdict):
                problems.append(
                    f"{where}: the correlation fires and nothing kb holds against "
                    f"the case explains it (kb: {verdict.level})"
                )
    assert not problems, "\n".join(problems)


def test_a_negative_that_only_a_rule_out_separates_fires_and_is_explained() -> None:
    """The honest limit, shown on one fixture: Sigma fires, kb's rule_out says no."""
    compiled = KB.get("docker-shm-too-small-nccl")
    assert compiled is not None
    fixture = Path(compiled.case.folder) / "fixtures/negative/a100x4-shm-open-permission-denied"
    con = duckdb.connect()
    load_logs(con, fixture, "job-1")
    replay = run(con, convert("duckdb", case_rules(compiled.case, "x").rules))
    verdict = run_case(compiled, read_bundle(KB, str(fixture)))
    assert replay.fired[rule_name(compiled.case.id)]
    assert verdict.level == "none"
    assert any(r.startswith("rule_out") for r in _why_it_may_fire(compiled.case, verdict))
