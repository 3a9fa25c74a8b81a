"""`kb evidence PATH`: show what the evidence reader understood from a folder, archive or file."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from kb.evidence.facts import dump_json
from kb.evidence.reader import read_evidence
from kb.evidence.summary import render_summary
from kb.report.terminal import safe_for_terminal


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "evidence",
        help="show files, ranks and facts read from an evidence folder",
        description="Read an evidence folder, archive (.tar/.tar.gz/.zip), file or - (stdin) "
        "and print what was understood, including every skipped file and why.",
    )
    p.add_argument("path", help="folder, archive, single file, or - for stdin")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--workers", type=int, default=None, help="processes (default: auto)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        bundle = read_evidence(args.path, workers=args.workers)
    except FileNotFoundError as exc:
        print(f"kb evidence: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        sys.stdout.write(dump_json(bundle, indent=2) + "\n")
    else:
        sys.stdout.write(safe_for_terminal(render_summary(bundle)))
    return 0
