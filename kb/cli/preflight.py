"""`kb preflight`: warn of known-bad setups on this node before a launch.

Exit codes: 0 no warning, 1 at least one warning holds, 2 usage error."""

from __future__ import annotations

import argparse
import os
import sys

from kb.cli.common import add_cases_option

EXIT_CLEAN, EXIT_WARNING = 0, 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "preflight", help="warn of known-bad combinations on this node before a launch",
        description="Capture this node as kb collect does (in a private temporary folder), "
        "evaluate every case's environment, package, hardware and topology queries on it, "
        "and warn of each case the machine alone makes hold, with its first remedy step. "
        "Exit 0: clean; 1: a warning holds.",
    )  # fmt: skip
    add_cases_option(p)
    p.add_argument("--format", "-f", choices=("text", "json"), default="text")
    p.add_argument(
        "--python",
        metavar="PATH",
        default=None,
        help="the job's interpreter (default: python on PATH)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from kb.cli.common import load_kb
    from kb.collect.preflight import preflight
    from kb.collect.preflight_report import render_json, render_text

    kb = load_kb(args)
    report = preflight(kb, dict(os.environ), python=args.python)
    sys.stdout.write(render_json(report) if args.format == "json" else render_text(report))
    return EXIT_WARNING if report.warnings else EXIT_CLEAN
