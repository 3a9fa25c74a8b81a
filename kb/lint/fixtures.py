"""Rules about a case's fixtures: they exist, they exercise every query, and on its own
positive evidence the case is the one `kb diagnose` puts first."""

from __future__ import annotations

import os
import re
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


MAX_FIXTURE_ENTRIES = 20_000  # entries looked at for links under one case's fixtures/


def fixture_links(case_folder: Path) -> list[Path]:
    """Every symbolic link under `case_folder/fixtures` (that folder itself included), none
    of them followed: a linked fixture folder or file is evidence from outside the case."""
    root = case_folder / "fixtures"
    if root.is_symlink():
        return [root]
    found: list[Path] = []
    seen = 0
    for dirpath, dirs, files in os.walk(root):  # never descends into a linked folder
        for name in sorted(dirs + files):
            path = Path(dirpath) / name
            seen += 1
            if path.is_symlink():
                found.append(path)
        if seen > MAX_FIXTURE_ENTRIES:
            break
    return found


class FixtureLink(Rule):
    """A fixture folder or file that is a symbolic link.

    A link can point anywhere on the machine that builds the site or runs `kb test`: its
    lines would be published as the case's evidence. `kb test` and the site leave it out;
    this rule says so, with the path. Run by `MissingFixture` (its registry entry), so the
    rule needs no registration of its own."""

    code = "lint/fixture-link"
    severity = Severity.ERROR
    description = "A fixture folder or file is a symbolic link (never followed)."
    help = "copy the evidence into the case's fixtures/ instead of linking to it"

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        if not case.folder:
            return
        folder = Path(case.folder)
        for link in fixture_links(folder):
            rel = link.relative_to(folder).as_posix()
            parts = rel.split("/")
            span = case.fixture_span("/".join(parts[1:3])) if len(parts) >= 3 else case.span
            yield self.report(
                span, f"`{rel}` is a symbolic link: `kb test` and the site do not follow it"
            )


def _roles(case: m.Case) -> tuple[set[str], set[str]]:
    """Queries whose truth speaks for the case, and those that only ever speak against it."""
    from kb.match.condition import positive_refs

    speaks_for: set[str] = set()
    against: set[str] = set()
    for clause in case.condition.clauses:
        for name, negated in positive_refs(clause.expr):
            # `rule_out a and not b`: `b` is an exception to the rule-out, so it speaks for
            if (clause.role is m.Role.RULING_OUT) != negated:
                against.add(name)
            else:
                speaks_for.add(name)
    for symptom in case.symptoms:
        speaks_for.update(symptom.evidence)
    return speaks_for, against - speaks_for


UNTESTED = re.compile(r"#\s*untested:\s*(\S.*)")


def acknowledged_gaps(case: m.Case) -> dict[str, str]:
    """Queries marked `# untested: <why>` on the comment lines right above them.

    Like semgrep's `todoruleid`: a query written from a vendor's documentation, whose line
    no stored thread shows yet, is recorded with the reason instead of warned about."""
    if not case.folder:
        return {}
    try:
        lines = (Path(case.folder) / "case.kb").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return {}
    out: dict[str, str] = {}
    for q in case.queries:
        i = q.span.line - 2
        while 0 <= i < len(lines) and lines[i].lstrip().startswith("#"):
            found = UNTESTED.match(lines[i].strip())
            if found:
                out[q.name] = found.group(1)
            i -= 1
    return out


def _unshown(case: m.Case, names: set[str]) -> Iterator[tuple[m.Query, int]]:
    """Queries among `names` that no real evidence shows: not true on any fixture of the
    case, and (for a log query) no line of any fixture in the knowledge base matches."""
    from kb.fixtures import default_roots
    from kb.lint.corpus import first_match

    runs = [r for r in fixture_runs(case) if r.error is None]
    if not runs:
        return
    roots = default_roots(Path(case.folder))
    for q in case.queries:
        if q.name not in names or any(r.truths.get(q.name) == "true" for r in runs):
            continue
        if first_match(q, roots) is None:
            yield q, len(runs)


def _no_evidence(rule: Rule, case: m.Case, q: m.Query, runs: int, what: str) -> Diagnostic:
    where = (
        ", and its pattern matches no line of any fixture in the knowledge base"
        if isinstance(q, m.LogQuery)
        else ""
    )
    return rule.report(
        q.span, f"{what} `{q.name}` holds on none of the {runs} fixture(s) of `{case.id}`{where}"
    )


class EvidenceNeverHit(Rule):
    """An alternative of `require a or b` that no real evidence shows is untested code.

    Warning: a required query missing everywhere already fails `kb test`; what is left are
    alternatives and supports. Real evidence is any fixture of the case, or, for a log
    query, a line of any fixture in the knowledge base (`kb.lint.corpus`): the line may
    have been posted in another case's thread. A query no stored thread shows yet is
    recorded with `# untested: <why>` above it, which this rule accepts.
    """

    code = "lint/evidence-never-hit"
    severity = Severity.WARNING
    description = "An evidence query that speaks for the case holds on no real evidence stored."
    help = (
        "add a fixture that shows it, or fix the query (is the regex too strict?); if no "
        "public thread shows it yet, say so in a `# untested: <why>` comment above it"
    )

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        speaks_for, _ = _roles(case)
        gaps = acknowledged_gaps(case)
        for q, runs in _unshown(case, speaks_for - set(gaps)):
            yield _no_evidence(self, case, q, runs, "evidence")


class RuleOutNeverHit(Rule):
    """A `rule_out` is proven by a near miss it excludes.

    Positive fixtures cannot prove it (the case must match there), so a query used only to
    rule out (or only negated) must hold on real evidence: a negative fixture of the case,
    or a line of any fixture in the knowledge base, where the near miss may be filed as
    another case's incident. Warning, not error: a rare alternative can be ruled out before
    anyone has handed over its logs (then say so with `# untested: <why>`).
    """

    code = "lint/rule-out-never-hit"
    severity = Severity.WARNING
    description = "A query used only to rule the case out holds on no real evidence stored."
    help = (
        "add the near miss it excludes as fixtures/negative/<name>/; if no public thread "
        "shows it yet, say so in a `# untested: <why>` comment above it"
    )

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        _, against = _roles(case)
        gaps = acknowledged_gaps(case)
        for q, runs in _unshown(case, against - set(gaps)):
            yield _no_evidence(self, case, q, runs, "rule-out evidence")


class StaleUntestedMark(Rule):
    code = "lint/stale-untested-mark"
    severity = Severity.WARNING
    description = "A query marked `# untested:` holds on a fixture of its case after all."
    help = "remove the `# untested:` comment: a fixture shows the query now"

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        gaps = acknowledged_gaps(case)
        if not gaps:
            return
        runs = [r for r in fixture_runs(case) if r.error is None]
        for q in case.queries:
            shown = [r.path for r in runs if r.truths.get(q.name) == "true"]
            if q.name in gaps and shown:
                yield self.report(
                    q.span, f"evidence `{q.name}` is marked untested but holds on `{shown[0]}`"
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
            # a refinement its own fixture cannot tell from the case it refines (no printed
            # fact of its own) ranks below it there: reported too, it never wins anywhere
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
