"""`kb check [PATH…]`: parse, lower and validate cases; print every problem with a caret.

Exit 0 when clean (warnings allowed), 1 when any error was reported, 2 on usage errors.
After the language's own checks, `kb.lint` adds the rules about what makes a case good.
`-q` prints only the errors and the summary line; `-v` also one line per file checked.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from dsl.api import DEFAULT_CASES, load_cases
from dsl.diagnostics import Diagnostic, Severity, render
from kb.cli.options import add_verbosity_options, exit_status
from kb.lint import lint_cases

EXIT_CLEAN, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2
EXIT_STATUS = exit_status(
    (EXIT_CLEAN, "no error (warnings allowed)"),
    (EXIT_ERRORS, "an error was reported (or a checker failed: an internal error)"),
    (EXIT_USAGE, "usage error"),
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check",
        help="check case files for syntax and semantic errors",
        description="Parse, lower and validate case files; print every problem found.",
        epilog=EXIT_STATUS,
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="case files or folders (default: the bundled cases/)",
    )
    parser.add_argument(
        "--cases",
        action="append",
        default=[],
        metavar="DIR",
        help="an extra folder of cases (repeatable); KB_CASES is honoured too",
    )
    add_verbosity_options(
        parser,
        quiet="print only the errors (no warnings) and the summary line",
        verbose="also print one line per case file checked, with its counts",
    )
    parser.set_defaults(func=run)


def _counts(diagnostics: list[Diagnostic]) -> str:
    errors = sum(d.severity is Severity.ERROR for d in diagnostics)
    warnings = sum(d.severity is Severity.WARNING for d in diagnostics)
    return f"{errors} error(s), {warnings} warning(s)"


def summary(files: int, diagnostics: list[Diagnostic]) -> str:
    return f"checked {files} case(s): {_counts(diagnostics)}"


def run(args: argparse.Namespace) -> int:
    roots: list[Path | str] = [*(args.paths or [DEFAULT_CASES]), *args.cases]
    try:
        result = load_cases(roots)
        diagnostics = list(result.diagnostics)
        diagnostics.extend(lint_cases(result.cases))
    except Exception as exc:  # a bug in a checker must not look like a crash of the input
        print(f"kb check: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_ERRORS
    diagnostics.sort(key=lambda d: (d.path, d.line, d.column))
    if args.verbose:
        for path in result.files:
            print(f"checked {path}: {_counts([d for d in diagnostics if d.path == str(path)])}")
        print()
    for d in diagnostics:
        if args.quiet and d.severity is not Severity.ERROR:
            continue
        print(render(d, result.sources.get(d.path)))
        print()
    print(summary(len(result.files), diagnostics))
    return EXIT_ERRORS if any(d.severity is Severity.ERROR for d in diagnostics) else EXIT_CLEAN
