"""Loki ruler alert groups built from the plain LogQL queries, one group per case.

pySigma-backend-loki 0.15.1's own `ruler` format breaks correlations: it pastes the base
rules' finished alert entries (Python dicts) into the correlation's expression. So the
groups are assembled here from the default-format queries, which are correct: a base rule
alerts when a job's logs hold a matching line, a correlation alerts as it is (its query is
already a per-job metric with its condition).
"""

from __future__ import annotations

import io
import re
from typing import Any

from ruamel.yaml import YAML

from kb.export.backends import Conversion

WINDOW = "5m"  # a base rule looks at the last minutes of a job's lines


def _alert_name(rule_name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", rule_name)


def ruler_groups(case_id: str, conversion: Conversion, rules: list[dict[str, Any]]) -> str:
    meta = {r["name"]: r for r in rules}
    entries = []
    for q in conversion.queries:
        if not q.query:
            continue
        rule = meta.get(q.rule_name, {})
        expr = (
            q.query
            if q.correlation
            else (f"sum by (job) (count_over_time({q.query} [{WINDOW}])) > 0")
        )
        entries.append(
            {
                "alert": _alert_name(q.rule_name),
                "expr": expr,
                "labels": {
                    "severity": rule.get("level", "medium"),
                    "distkb_case": case_id,
                    "sigma_id": q.rule_id,
                },
                "annotations": {
                    "summary": rule.get("title", q.rule_name),
                    "description": rule.get("description", ""),
                },
            }
        )
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    yaml.width = 4096
    out = io.StringIO()
    yaml.dump({"groups": [{"name": f"distkb-{case_id}", "rules": entries}]}, out)
    return out.getvalue()
