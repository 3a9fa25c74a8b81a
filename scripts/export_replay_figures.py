"""The export figures the README quotes: every fixture of every case shipped as JSON lines and
run in DuckDB through the converted rules, the Sigma correlations and the case alerts.

    python scripts/export_replay_figures.py

Prints the decisive lines hit, the confirmed positives each kind of case-level query fires
on, and the negatives each stays silent on (with the cases and fixtures that fire). The
assertions behind the same figures are in tests/kb/export/test_duckdb_replay.py. Needs the
extra `fleet`.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import duckdb

from dsl import model as m
from dsl.compiler import load_knowledge_base
from kb.export.alert import alert_name
from kb.export.alert_queries import convert_case
from kb.export.replay import load_logs, run
from kb.export.rules import rule_name
from kb.export.sigma import case_rules
from kb.match.diagnose import read_bundle, run_case


def main() -> int:
    kb = load_knowledge_base(with_env=False)
    n: Counter[str] = Counter()
    firing: list[str] = []
    con = duckdb.connect()
    for compiled in kb.cases:
        case = compiled.case
        rules = case_rules(case, "http://127.0.0.1:8000")
        conversion = convert_case("duckdb", rules)
        has_alert = rules.alert is not None and rules.alert.expressible
        has_corr = rules.correlation.correlation is not None
        for kind in ("positive", "negative"):
            folder = Path(case.folder) / "fixtures" / kind
            for fixture in sorted(p for p in folder.glob("*") if p.is_dir()):
                verdict = run_case(compiled, read_bundle(kb, str(fixture)))
                load_logs(con, fixture, "job-1")
                replay = run(con, conversion)
                alert = replay.fired.get(alert_name(case.id), False)
                corr = replay.fired.get(rule_name(case.id), False)
                n[kind] += 1
                if kind == "positive":
                    for query, ln in verdict.evidence:
                        if isinstance(case.query(query), m.LogQuery):
                            n["decisive"] += 1
                            hits = replay.hits[rule_name(case.id, query)]
                            n["decisive hit"] += (ln.file, ln.line) in hits
                    if verdict.level == m.Level.CONFIRMED.value:
                        n["confirmed, case has a correlation"] += has_corr
                        n["confirmed, correlation fired"] += has_corr and corr
                        n["confirmed, case has an alert"] += has_alert
                        n["confirmed, alert fired"] += has_alert and alert
                else:
                    n["negative, correlation fired"] += corr
                    n["negative, alert fired"] += alert
                    if alert:
                        complete = rules.alert is not None and rules.alert.complete
                        firing.append(
                            f"  {case.id} {fixture.name} (kb: {verdict.level}; alert "
                            f"{'complete' if complete else 'partial'})"
                        )
    print(f"fixtures: {n['positive']} positive, {n['negative']} negative")
    print(f"decisive lines hit by their rule: {n['decisive hit']} of {n['decisive']}")
    print(
        f"confirmed positives, correlation fired: {n['confirmed, correlation fired']} of "
        f"{n['confirmed, case has a correlation']}; alert fired: "
        f"{n['confirmed, alert fired']} of {n['confirmed, case has an alert']}"
    )
    print(
        f"negatives silent: correlation {n['negative'] - n['negative, correlation fired']} of "
        f"{n['negative']}, alert {n['negative'] - n['negative, alert fired']} of {n['negative']}"
    )
    print("negatives an alert fires on:", *firing, sep="\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
