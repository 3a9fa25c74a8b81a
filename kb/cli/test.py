"""`kb test [CASE-ID…]`: run the fixtures of the named cases (all if none) and report each.

The same machinery as the pytest plugin (`kb.fixtures.check_fixture`), so a fixture passes
here exactly when it passes under `pytest`. Exit 0 all passed, 1 any failed, 2 usage error.
`-q` prints only the failures and the summary line; `-v` every evidence line of each fixture.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from kb.cli.common import add_cases_option, case_roots, load_kb
from kb.cli.options import add_verbosity_options, exit_status

if TYPE_CHECKING:  # imported in run(): `kb --help` must not pay for the fixture runner
    from kb.fixtures import FixtureOutcome

MAX_LINES = 5  # evidence lines shown per fixture (all of them with --verbose)
EXIT_PASSED, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_STATUS = exit_status(
    (EXIT_PASSED, "every fixture passed (known gaps allowed)"),
    (EXIT_FAILED, "a fixture failed"),
    (EXIT_USAGE, "usage error (an unknown case id)"),
)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "test",
        help="run the fixture tests of cases",
        description="Diagnose every fixture folder of the named cases (all cases if none) "
        "and compare with what each must yield.",
        epilog=EXIT_STATUS,
    )
    p.add_argument("case_ids", nargs="*", metavar="CASE-ID", help="cases to test (default: all)")
    add_verbosity_options(
        p,
        quiet="print only the failed fixtures and the summary line",
        verbose=f"print every evidence line of each fixture, not the first {MAX_LINES}",
    )
    add_cases_option(p)
    p.set_defaults(func=run)


def _status(outcome: FixtureOutcome) -> str:
    if outcome.known_gap:
        return "KNOWN GAP"
    return "PASS" if outcome.passed else "FAIL"


def describe(outcome: FixtureOutcome, max_lines: int | None = MAX_LINES) -> list[str]:
    """The readable block for one fixture: status, expectation, matches, lines (the first
    `max_lines`, all with None), problems."""
    spec = outcome.spec
    exp = spec.expectation
    out = [f"  {_status(outcome):<9} {spec.path}"]
    expected = "match" if spec.positive else "no match"
    if exp.culprit_rank is not None:
        expected += f", culprit rank {exp.culprit_rank}"
    if exp.lines:
        expected += ", lines " + ", ".join(f"{q} at {w}" for q, w in exp.lines)
    out.append(f"            expected: {expected}")
    if outcome.known_gap:
        note = " (now passes: remove `todo`)" if outcome.passed else ""
        out.append(f"            known gap: {exp.todo}{note}")
    diagnosis = outcome.diagnosis
    if diagnosis is not None:
        matched = ", ".join(f"{v.id} {v.score:.2f}" for v in diagnosis.matches) or "no case"
        out.append(f"            matched:  {matched}")
    verdict = outcome.verdict
    if verdict is not None:
        if verdict.culprit_rank is not None:
            out.append(f"            culprit:  rank {verdict.culprit_rank}")
        shown = verdict.evidence[:max_lines] if max_lines is not None else verdict.evidence
        for query, line in shown:
            out.append(f"            evidence: {line.where} ({query})")
        if len(verdict.evidence) > len(shown):
            out.append(f"            evidence: … {len(verdict.evidence) - len(shown)} more")
    for problem in outcome.problems:
        out.append(f"            problem:  {problem}")
    return out


def summary(passed: int, failed: int, gaps: int) -> str:
    line = f"{passed} passed, {failed} failed"
    return line + (f", {gaps} known gap{'s' if gaps != 1 else ''}" if gaps else "")


def run(args: argparse.Namespace) -> int:
    from kb.fixtures import FixtureOutcome, check_fixture, fixtures_of

    kb = load_kb(args)
    known = {c.case.id: c.case for c in kb.cases}
    unknown = [i for i in args.case_ids if i not in known]
    if unknown:
        print(
            f"kb test: unknown case id(s): {', '.join(unknown)}; known: "
            f"{', '.join(sorted(known)) or 'none'} (a case that does not compile is left "
            "out: run `kb check`)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    roots = tuple(str(p) for p in case_roots(args))
    max_lines = None if args.verbose else MAX_LINES
    passed = failed = gaps = 0
    for case_id in args.case_ids or sorted(known):
        specs = fixtures_of(known[case_id])
        header: str | None = case_id  # printed once, before the first block shown
        if not args.quiet:
            print(header)
            header = None
        if not specs and not args.quiet:
            print("  (no fixtures: add fixtures/positive/<name>/ and fixtures/negative/<name>/)")
        for spec in specs:
            try:
                outcome = check_fixture(spec, roots)
            except Exception as exc:  # unreadable evidence fails the fixture, not the command
                outcome = FixtureOutcome(
                    spec, problems=[f"cannot diagnose: {type(exc).__name__}: {exc}"]
                )
            is_failure = not outcome.known_gap and not outcome.passed
            if is_failure or not args.quiet:
                if header is not None:
                    print(header)
                    header = None
                print("\n".join(describe(outcome, max_lines)))
            if outcome.known_gap:
                gaps += 1
            elif outcome.passed:
                passed += 1
            else:
                failed += 1
        if header is None:
            print()
    print(summary(passed, failed, gaps))
    return EXIT_FAILED if failed else EXIT_PASSED
