"""`kb evidence PATH` (or `--evidence PATH`): show what the evidence reader understood from a
folder, archive, file or stdin."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from kb.cli.options import add_evidence_argument, evidence_path, exit_status

EXIT_READ, EXIT_USAGE = 0, 2
EXIT_STATUS = exit_status(
    (EXIT_READ, "read (files that could not be read are listed with the reason, not fatal)"),
    (EXIT_USAGE, "usage error or an evidence path that does not exist"),
)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "evidence",
        help="show files, ranks and facts read from an evidence folder",
        description="Read an evidence folder, archive (.tar/.tar.gz/.zip), file or - (stdin) "
        "and print what was understood, including every skipped file and why.",
        epilog=EXIT_STATUS,
    )
    add_evidence_argument(p, "folder, .tar/.tar.gz/.tgz/.zip archive, single file")
    p.add_argument(
        "--format",
        "-f",
        choices=("text", "json"),
        default="text",
        help="text for a person (default), or json: every file with its kind, rank and "
        "rank_from, and the facts read",
    )
    p.add_argument("--workers", type=int, default=None, help="processes (default: auto)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dsl.catalogue.load import held_fingerprint

    # the reader asks the catalogue, for each small file it weighs, whether a line is a
    # message it knows: its files are walked once per run, not once per file (1.5 ms each)
    with held_fingerprint():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from kb.evidence import progressbar
    from kb.evidence.facts import dump_json
    from kb.evidence.reader import read_evidence
    from kb.evidence.summary import render_summary
    from kb.report.terminal import safe_for_terminal

    try:
        with progressbar.shown(args.format != "json"):  # stderr, and only at a terminal
            bundle = read_evidence(evidence_path(args), workers=args.workers)
    except FileNotFoundError as exc:
        print(f"kb evidence: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.format == "json":
        sys.stdout.write(dump_json(bundle, indent=2) + "\n")
    else:
        sys.stdout.write(safe_for_terminal(render_summary(bundle)))
    return EXIT_READ
