"""`kb check [PATH…]`: parse, lower and validate cases; print every problem with a caret.

Exit 0 when clean (warnings allowed), 1 when any error was reported, 2 on usage errors.
After the language's own checks, `kb.lint` adds the rules about what makes a case good.
`-q` prints only the errors and the summary line; `-v` also one line per file checked.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kb.cli.options import add_verbosity_options, exit_status

if TYPE_CHECKING:  # the language is imported in run(): `kb --help` must not pay for it
    from dsl import model as m
    from dsl.catalogue.load import CatalogueLoad
    from dsl.diagnostics import Diagnostic

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
        help="case files or folders, or catalogue folders/files (any path under a folder named"
        " `catalogue`); default: the bundled cases/ and catalogue/",
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


def lint_cases(cases: list[m.Case]) -> list[Diagnostic]:
    """`kb.lint.lint_cases`, imported on first use (a module attribute tests can replace)."""
    from kb.lint import lint_cases as run_lints

    return run_lints(cases)


def _counts(diagnostics: list[Diagnostic]) -> str:
    from dsl.diagnostics import Severity

    errors = sum(d.severity is Severity.ERROR for d in diagnostics)
    warnings = sum(d.severity is Severity.WARNING for d in diagnostics)
    return f"{errors} error(s), {warnings} warning(s)"


def summary(
    files: int, diagnostics: list[Diagnostic], catalogue: CatalogueLoad | None = None
) -> str:
    parts = [f"{files} case(s)"] if files or catalogue is None else []
    if catalogue is not None:
        n = len(catalogue.catalogue)
        parts.append(
            f"{n} catalogue entr{'y' if n == 1 else 'ies'} ({len(catalogue.files)} file(s))"
        )
    return f"checked {' and '.join(parts)}: {_counts(diagnostics)}"


def _check_catalogue(roots: list[Path]) -> tuple[CatalogueLoad, list[Diagnostic]]:
    from dsl.api import known_case_ids
    from dsl.catalogue.check import check_catalogue
    from dsl.catalogue.load import load_catalogue

    loaded = load_catalogue(roots, with_env=False)
    found = list(loaded.diagnostics)
    found.extend(check_catalogue(loaded.catalogue, known_case_ids()))
    return loaded, found


def run(args: argparse.Namespace) -> int:
    from dsl.api import DEFAULT_CASES, load_cases
    from dsl.catalogue.load import default_roots, is_catalogue_path
    from dsl.diagnostics import Severity, render

    given = [*args.paths, *args.cases]
    catalogue_roots = [Path(p) for p in given if is_catalogue_path(p)]
    case_roots: list[Path | str] = [p for p in given if not is_catalogue_path(p)]
    if not given:
        case_roots, catalogue_roots = [DEFAULT_CASES], default_roots()
    catalogue: CatalogueLoad | None = None
    sources: dict[str, str] = {}
    files: list[Path] = []
    diagnostics: list[Diagnostic] = []
    try:
        if catalogue_roots:
            catalogue, found = _check_catalogue(catalogue_roots)
            diagnostics.extend(found)
            sources.update(catalogue.sources)
        if case_roots:
            result = load_cases(case_roots)
            diagnostics.extend(result.diagnostics)
            diagnostics.extend(lint_cases(result.cases))
            sources.update(result.sources)
            files = result.files
    except Exception as exc:  # a bug in a checker must not look like a crash of the input
        print(f"kb check: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_ERRORS
    diagnostics.sort(key=lambda d: (d.path, d.line, d.column))
    if args.verbose:
        for path in [*files, *(catalogue.files if catalogue else [])]:
            print(f"checked {path}: {_counts([d for d in diagnostics if d.path == str(path)])}")
        print()
    for d in diagnostics:
        if args.quiet and d.severity is not Severity.ERROR:
            continue
        print(render(d, sources.get(d.path)))
        print()
    print(summary(len(files), diagnostics, catalogue))
    return EXIT_ERRORS if any(d.severity is Severity.ERROR for d in diagnostics) else EXIT_CLEAN
