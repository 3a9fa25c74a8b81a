"""Every exported LogQL query (base rules, correlations, the case alerts with `unless`)
parses with Grafana's own LogQL grammar (@grafana/lezer-logql, the Loki query editor's
parser), run by Node from tests/tools/logql. No Loki server runs here, so this checks the
language, not the results; the results are checked in DuckDB (test_duckdb_replay.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("sigma.backends.loki", reason="extra `fleet`")

from dsl.compiler import load_knowledge_base
from kb.export.alert_queries import convert_case
from kb.export.sigma import case_rules

pytestmark = pytest.mark.slow  # parses every exported LogQL query with Grafana's grammar (Node)

TOOL = Path(__file__).resolve().parents[2] / "tools" / "logql"
BROKEN = 'sum by (job) (count_over_time({job=~".+"} | json [24h])) unless'


def _parse(queries: list[str]) -> list[dict[str, object]]:
    node = shutil.which("node")
    if node is None or not (TOOL / "node_modules" / "@grafana" / "lezer-logql").is_dir():
        message = (
            "the LogQL check needs Node.js and `npm ci --prefix tests/tools/logql` "
            "(done by scripts/bootstrap.sh --test)"
        )
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)
    out = subprocess.run(
        [node, str(TOOL / "check.cjs")],
        input="".join(json.dumps(q) + "\n" for q in queries),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_every_exported_logql_query_parses() -> None:
    queries: list[tuple[str, str]] = []
    for compiled in load_knowledge_base(with_env=False).cases:
        for q in convert_case("loki", case_rules(compiled.case, "x")).queries:
            assert not q.error, q.rule_name
            queries.append((q.rule_name, q.query))
    assert any(name.endswith("/alert") for name, _ in queries)
    *errors, summary = _parse([q for _, q in queries] + [BROKEN])
    assert summary == {"parsed": len(queries) + 1, "errors": len(errors)}
    # the broken query at the end is caught, so the parser does report errors
    assert [e["index"] for e in errors] == [len(queries)], [
        (queries[int(str(e["index"]))][0], e["near"]) for e in errors if e["index"] != len(queries)
    ]
