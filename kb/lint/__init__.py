"""Case lint: rules about what makes a case good, beyond what makes it valid.

`kb check` calls `lint_cases` after parsing and validation. Each rule is one small class
(`kb.lint.base.Rule`) with a `code`, a `severity` and a one-line `description`; every rule
runs on every case and all findings are reported together. A rule that crashes becomes a
warning naming it, so one bug never hides the other findings.
"""

from __future__ import annotations

from dsl import model as m
from dsl.diagnostics import Diagnostic, Severity
from kb.lint.base import Rule
from kb.lint.catalogued import CataloguedMessagePattern, DecisiveMessageNotRead
from kb.lint.conventions import FixtureNameNotKebabCase, TagNotKebabCase, UnknownComponent
from kb.lint.drafts import GenericEvidence
from kb.lint.fixtures import (
    EvidenceNeverHit,
    FixtureLink,
    FixtureNotRead,
    MissingFixture,
    RuleOutNeverHit,
    ShadowedCase,
    StaleUntestedMark,
)
from kb.lint.ladder import NeverConfirmed, ProofWithoutOwnFact
from kb.lint.metadata import MissingMetadata, PlaceholderText
from kb.lint.remedies import UnverifiedStep
from kb.lint.translations import UnpairedTranslation

__all__ = ["RULES", "Rule", "lint_cases"]

RULES: dict[str, type[Rule]] = {
    rule.code: rule
    for rule in (
        MissingMetadata,
        PlaceholderText,
        GenericEvidence,
        MissingFixture,
        FixtureLink,
        EvidenceNeverHit,
        RuleOutNeverHit,
        StaleUntestedMark,
        ShadowedCase,
        FixtureNotRead,
        UnverifiedStep,
        TagNotKebabCase,
        UnknownComponent,
        FixtureNameNotKebabCase,
        UnpairedTranslation,
        CataloguedMessagePattern,
        DecisiveMessageNotRead,
        NeverConfirmed,
        ProofWithoutOwnFact,
    )
}


def lint_cases(cases: list[m.Case], rules: list[str] | None = None) -> list[Diagnostic]:
    """Every finding of every rule (or of the named `rules`) on every case."""
    out: list[Diagnostic] = []
    chosen = [RULES[code]() for code in (rules or RULES)]
    for case in cases:
        for rule in chosen:
            try:
                out.extend(rule.check(case, cases))
            except Exception as exc:  # a rule's bug is reported, not raised
                out.append(
                    Diagnostic.at(
                        case.span,
                        f"lint rule {rule.code} failed on `{case.id}`: {type(exc).__name__}: {exc}",
                        code="lint/internal",
                        severity=Severity.WARNING,
                    )
                )
    return out
