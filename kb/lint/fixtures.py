"""Rules about a case's fixtures: they exist, they exercise every query, and on its own
positive evidence the case is the one `kb diagnose` puts first."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from dsl import model as m
from dsl.diagnostics import Diagnostic, Severity
from kb.lint.base import Rule
from kb.lint.runs import fixture_runs


class MissingFixture(Rule):
    code = "lint/missing-fixture"
    severity = Severity.WARNING
    description = "The case has no positive or no negative fixture folder on disk."
    help = (
        "add real evidence under fixtures/positive/<name>/ and a near miss under "
        "fixtures/negative/<name>/ (see CONTRIBUTING.md)"
    )

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        if not case.folder:
            return
        root = Path(case.folder) / "fixtures"
        for kind in ("positive", "negative"):
            base = root / kind
            if not base.is_dir() or not any(p.is_dir() for p in base.iterdir()):
                yield self.report(
                    case.span,
                    f"case `{case.id}` has no {kind} fixture folder (fixtures/{kind}/<name>/)",
                )


def _roles(case: m.Case) -> tuple[set[str], set[str]]:
    """Queries whose truth speaks for the case, and those that only ever speak against it."""
    from kb.match.condition import positive_refs

    speaks_for: set[str] = set()
    against: set[str] = set()
    for clause in case.condition.clauses:
        for name, negated in positive_refs(clause.expr):
            if clause.role is m.Role.RULING_OUT or negated:
                against.add(name)
            else:
                speaks_for.add(name)
    for symptom in case.symptoms:
        speaks_for.update(symptom.evidence)
    return speaks_for, against - speaks_for


class EvidenceNeverHit(Rule):
    """An alternative of `require a or b` no fixture exercises is untested code.

    Warning: a required query missing everywhere already fails `kb test`; what is left are
    alternatives and supports that no real evidence has shown yet.
    """

    code = "lint/evidence-never-hit"
    severity = Severity.WARNING
    description = (
        "An evidence query that speaks for the case holds on none of its positive fixtures."
    )
    help = "add a positive fixture that shows it, or fix the query (is the regex too strict?)"

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        runs = [r for r in fixture_runs(case) if r.positive and r.error is None]
        if not runs:
            return
        speaks_for, _ = _roles(case)
        for q in case.queries:
            if q.name in speaks_for and not any(r.truths.get(q.name) == "true" for r in runs):
                yield self.report(
                    q.span,
                    f"evidence `{q.name}` holds on none of the "
                    f"{len(runs)} positive fixture(s) of `{case.id}`",
                )


class RuleOutNeverHit(Rule):
    """A `rule_out` is proven by a near miss it excludes; that is the negative fixture's job.

    Positive fixtures cannot prove it (the case must match there), so a query used only to
    rule out (or only negated) must hold on some negative fixture. Warning, not error: a rare
    alternative can be ruled out before anyone has handed over its logs.
    """

    code = "lint/rule-out-never-hit"
    severity = Severity.WARNING
    description = "A query used only to rule the case out holds on none of its negative fixtures."
    help = "add the near miss it excludes as fixtures/negative/<name>/"

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        runs = [r for r in fixture_runs(case) if not r.positive and r.error is None]
        if not runs:
            return
        _, against = _roles(case)
        for q in case.queries:
            if q.name in against and not any(r.truths.get(q.name) == "true" for r in runs):
                yield self.report(
                    q.span,
                    f"rule-out evidence `{q.name}` holds on none of the "
                    f"{len(runs)} negative fixture(s) of `{case.id}`",
                )


class ShadowedCase(Rule):
    code = "lint/shadowed-case"
    severity = Severity.ERROR
    description = "Another case ranks first on one of this case's own positive fixtures."
    help = (
        "make the queries more specific, or declare `specializes [other]` when this case "
        "refines the other one"
    )

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        for run in fixture_runs(case):
            if not run.positive or run.known_gap or run.error or not run.ranking:
                continue
            ids = [i for i, _ in run.ranking]
            if case.id not in ids or ids[0] == case.id:
                continue  # not matching at all is a fixture failure: `kb test` reports it
            first, score = run.ranking[0]
            if first in case.specializes:
                continue
            own = dict(run.ranking)[case.id]
            yield self.report(
                case.fixture_span(run.path),
                f"on its positive fixture "
                f"`{run.path}`, `{first}` "
                f"ranks first ({score:.2f} vs {own:.2f})",
            )


class FixtureNotRead(Rule):
    code = "lint/fixture-not-read"
    severity = Severity.WARNING
    description = "A fixture folder could not be diagnosed, so the fixture rules skipped it."

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        for run in fixture_runs(case):
            if run.error:
                yield self.report(
                    case.fixture_span(run.path),
                    f"fixture `{run.path}` could not be read: {run.error}",
                )
