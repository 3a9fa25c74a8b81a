"""Loki ruler alert groups built from the plain LogQL queries, one group per case.

pySigma-backend-loki 0.15.1's own `ruler` format breaks correlations: it pastes the base
rules' finished alert entries (Python dicts) into the correlation's expression. So the
groups are assembled here from the default-format queries, which are correct: a base rule
alerts when a job's logs hold a matching line, and the case alerts with its alert query
(`kb.export.alert_queries`, which says the rule_outs with `unless`) or, for a case without
one, its correlation as it is (already a per-job metric with its condition).
"""

from __future__ import annotations

import io
import re
from typing import Any

from kb.export.alert import Alert
from kb.export.backends import Conversion
from kb.export.rules import rule_name
from kb.export.sigma import rules_yaml

WINDOW = "5m"  # a base rule looks at the last minutes of a job's lines


# Loki's ruler (like Prometheus) expands annotations as Go templates: a case's `{{ … }}` would
# run as a template when the rule is loaded, so each delimiter is written as a string action
_DELIMITER = re.compile(r"\{\{|\}\}")


def template_literal(text: str) -> str:
    """`text` as an annotation that a Go template shows verbatim.

    >>> template_literal("{{ .Labels }} x}}")
    '{{ "{{" }} .Labels {{ "}}" }} x{{ "}}" }}'
    """
    return _DELIMITER.sub(lambda m: '{{ "' + m.group(0) + '" }}', text)


def _alert_name(rule_name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", rule_name)


def ruler_groups(
    case_id: str, conversion: Conversion, rules: list[dict[str, Any]], alert: Alert | None = None
) -> str:
    meta = {r["name"]: r for r in rules}
    names = {q.rule_name: q.rule_name for q in conversion.queries}
    ids = {q.rule_name: q.rule_id for q in conversion.queries}
    if alert is not None and alert.name in names:
        # the Sigma id it carries is the correlation's it stands in for; none if it has none
        ids[alert.name] = ids.get(rule_name(case_id), "")
        # the case's one alert in the group, named for the case: it says the rule_outs
        # (`unless`), which the Sigma correlation cannot, so it takes the correlation's place
        meta[alert.name] = {
            "level": alert.level,
            "title": alert.title,
            "description": alert.description,
            # route a partial alert to `kb diagnose`, page on a complete one
            "labels": {"distkb_complete": "true" if alert.complete else "false"},
        }
        names[alert.name] = rule_name(case_id)
        names.pop(rule_name(case_id), None)
    entries = []
    for q in conversion.queries:
        if not q.query or q.rule_name not in names:
            continue
        rule = meta.get(q.rule_name, {})
        expr = (
            q.query
            if q.correlation
            else (f"sum by (job) (count_over_time({q.query} [{WINDOW}])) > 0")
        )
        entries.append(
            {
                "alert": _alert_name(names[q.rule_name]),
                "expr": expr,
                "labels": {
                    "severity": rule.get("level", "medium"),
                    "distkb_case": case_id,
                    **({"sigma_id": ids[q.rule_name]} if ids[q.rule_name] else {}),
                    **rule.get("labels", {}),
                },
                "annotations": {
                    "summary": template_literal(rule.get("title", q.rule_name)),
                    "description": template_literal(rule.get("description", "")),
                },
            }
        )
    yaml = rules_yaml()
    out = io.StringIO()
    yaml.dump({"groups": [{"name": f"distkb-{case_id}", "rules": entries}]}, out)
    return out.getvalue()
