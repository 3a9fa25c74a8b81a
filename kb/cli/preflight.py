"""`kb preflight`: warn of known-bad setups on this node before a launch.

Exit codes: 0 no warning, 1 at least one warning holds, 2 usage error, 3 nothing could be
checked (no case applies to what this machine shows): not the all-clear 0, so a launch script
that gates on `kb preflight` does not read a node whose GPUs it cannot see as clean."""

from __future__ import annotations

import argparse
import os
import sys

from kb.cli.common import add_cases_option
from kb.cli.options import exit_status

EXIT_CLEAN, EXIT_WARNING, EXIT_USAGE, EXIT_NOTHING_CHECKED = 0, 1, 2, 3
EXIT_STATUS = exit_status(
    (EXIT_CLEAN, "no warning: the cases that apply to this machine found nothing known-bad"),
    (EXIT_WARNING, "at least one warning holds"),
    (EXIT_USAGE, "usage error"),
    (EXIT_NOTHING_CHECKED, "nothing could be checked: no case applies to what this machine "
     "shows (no GPU or NPU found, or their tools are not on PATH); not an all-clear"),
)  # fmt: skip


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "preflight", help="warn of known-bad combinations on this node before a launch",
        description="Capture this node as kb collect does (in a private temporary folder), "
        "evaluate every case's environment, package, hardware and topology queries on it, "
        "and warn of each case the machine alone makes hold, with its first remedy step.",
        epilog=EXIT_STATUS,
    )  # fmt: skip
    add_cases_option(p)
    p.add_argument(
        "--format",
        "-f",
        choices=("text", "json"),
        default="text",
        help="text for a person (default), or json (schema kb.preflight/v1) for a script",
    )
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
    from kb.collect.preflight_report import render_json, render_text, status

    kb = load_kb(args)
    report = preflight(kb, dict(os.environ), python=args.python)
    sys.stdout.write(render_json(report) if args.format == "json" else render_text(report))
    return {"warning": EXIT_WARNING, "clean": EXIT_CLEAN}.get(status(report), EXIT_NOTHING_CHECKED)
