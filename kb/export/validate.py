"""Validating exported rules with pySigma's own validators (core and SigmaHQ's).

Every validator runs except the ones listed in `DISABLED`, each with the reason: some
download data at run time (the export runs offline), some enforce the SigmaHQ repository's
house style, which these rules, living in their own namespace, do not follow.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DISABLED: dict[str, str] = {
    "attacktag": "downloads MITRE ATT&CK at run time; no rule carries an attack.* tag",
    "d3_fendtag": "downloads MITRE D3FEND at run time; no rule carries a d3fend.* tag",
    "sigmahq_fieldname_cast": "downloads SigmaHQ's field taxonomy at run time; our fields "
    "(job, rank, line, ...) are the shipper's, not in that taxonomy",
    "sigmahq_invalid_fieldname": "downloads SigmaHQ's field taxonomy at run time (as above)",
    "sigmahq_redundant_field": "downloads SigmaHQ's field taxonomy at run time (as above)",
    "sigmahq_logsource_unknown": "downloads SigmaHQ's log source list at run time; "
    "distributed-training/training-logs is our own log source",
    "namespace_tag": "tags are in our own `distkb.` namespace (case tags and id); Sigma's list "
    "of namespaces is closed (attack, car, cve, d3fend, detection, stp, tlp)",
    "sigmahq_title_case": "SigmaHQ house style (Title Case); titles are the cases' own "
    "sentences and `case-id: query`",
    "sigmahq_github_link": "SigmaHQ house style (permalinks); references are the case's own "
    "links, copied as written",
}


@dataclass
class Validation:
    rules: int = 0
    errors: list[str] = field(default_factory=list)  # parse errors and validator issues

    @property
    def ok(self) -> bool:
        return not self.errors


def validators() -> list[Any]:
    import sigma.validators.core as core
    import sigma.validators.sigmahq as sigmahq

    found = {**core.validators, **sigmahq.validators}
    return [v for name, v in found.items() if name not in DISABLED]


def validate_yaml(documents: dict[str, str]) -> Validation:
    """Parse and validate each file's rules (file name -> YAML text); never raises."""
    from sigma.collection import SigmaCollection
    from sigma.exceptions import SigmaError
    from sigma.validation import SigmaValidator

    result = Validation()
    checks = validators()
    for name, text in documents.items():
        try:
            collection = SigmaCollection.from_yaml(text, collect_errors=True)
            collection.resolve_rule_references()
        except (SigmaError, ValueError) as exc:
            result.errors.append(f"{name}: {exc}")
            continue
        result.rules += len(collection.rules)
        for rule in collection.rules:
            result.errors.extend(f"{name}: {rule.title}: {err}" for err in rule.errors)
        issues = SigmaValidator(checks).validate_rules(collection.rules)  # type: ignore[arg-type]
        for issue in issues:
            result.errors.append(f"{name}: {type(issue).__name__}: {issue.description}")
    return result
