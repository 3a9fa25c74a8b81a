"""`kb export sigma`: every case as one YAML file of Sigma rules.

Per case: one rule per log query, one rule per `require` clause that is an `or` of log
queries, and the correlation over them. Written with ruamel (a core dependency), so
exporting needs no pySigma; validating and converting do (extra `fleet`).
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from dsl import model as m
from kb.export.alert import Alert, case_alert, lines_rules
from kb.export.correlation import CaseCorrelation, correlate
from kb.export.rules import query_rule


@dataclass
class CaseRules:
    case_id: str
    rules: list[dict[str, Any]] = field(default_factory=list)  # base rules, then correlation
    correlation: CaseCorrelation = field(default_factory=CaseCorrelation)
    # the job-level alert the query backends get (Sigma itself cannot say its rule_outs)
    alert: Alert | None = None
    lines_rules: list[dict[str, Any]] = field(default_factory=list)

    @property
    def stem(self) -> str:
        """The case id as a file name: ids are kebab-case, but a pack is untrusted, so
        nothing but `[a-z0-9.-]` reaches the path."""
        return re.sub(r"[^a-z0-9.-]", "-", self.case_id).lstrip(".") or "case"

    @property
    def file_name(self) -> str:
        return f"{self.stem}.yml"


def case_rules(case: m.Case, site: str) -> CaseRules:
    corr = correlate(case, site)
    rules = [query_rule(case, q, site) for q in case.queries if isinstance(q, m.LogQuery)]
    rules += corr.clause_rules
    if corr.correlation is not None:
        rules.append(corr.correlation)
    alert = case_alert(case)
    return CaseRules(
        case_id=case.id,
        rules=rules,
        correlation=corr,
        alert=alert,
        lines_rules=lines_rules(case, alert),
    )


# ruamel folds a double-quoted scalar longer than `width` and, past a `\\` escape, folds it
# wrongly (a space appears inside the regex); catalogue alternations run past 4,096 characters
NEVER_FOLD = 1 << 30


def rules_yaml() -> YAML:
    """The YAML writer for rules: safe, key order kept, every value on one line."""
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    yaml.width = NEVER_FOLD
    yaml.allow_unicode = True
    return yaml


def render(rules: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    rules_yaml().dump_all(rules, out)
    return out.getvalue()


def write_rules(all_rules: list[CaseRules], out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for case in all_rules:
        path = out_dir / case.file_name
        path.write_text(render(case.rules), encoding="utf-8")
        written.append(path)
    return written
