"""`kb diagnose PATH` (or `--evidence PATH`): which known incident is this, why, and what to do.

Exit codes: 0 at least one known case matches; 1 no case matches; 2 usage error or
unreadable evidence path.
"""

from __future__ import annotations

import argparse
import os
import sys

from kb.cli.common import add_cases_option, load_kb
from kb.cli.options import add_evidence_argument, evidence_path, exit_status

EXIT_MATCH, EXIT_NO_MATCH, EXIT_USAGE = 0, 1, 2
EXIT_STATUS = exit_status(
    (EXIT_MATCH, "a known case matched"),
    (EXIT_NO_MATCH, "no case matched (the report says what to collect next)"),
    (EXIT_USAGE, "usage error, an evidence path that does not exist, or an unknown --case"),
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "diagnose",
        help="rank the known cases that match an evidence folder",
        description="Read an evidence folder, archive, file or - (stdin) and rank the known "
        "cases that match.",
        epilog=EXIT_STATUS,
    )
    add_evidence_argument(p, "folder, .tar/.tar.gz/.tgz/.zip archive, single file")
    add_cases_option(p)
    p.add_argument(
        "--format",
        "-f",
        choices=("text", "json", "markdown"),
        default="text",
        help="text for a terminal (default), json (schema kb.diagnosis/v1) or markdown to paste",
    )
    p.add_argument("--case", metavar="ID", help="check this one case only")
    p.add_argument("--workers", type=int, default=None, help="processes for large folders")
    p.add_argument(
        "--no-summary",
        action="store_true",
        help="text format: leave out the summary of what was read",
    )
    p.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="text format: every clause, every evidence line and every file read",
    )
    p.add_argument(
        "--no-pager",
        action="store_true",
        help="text format on a terminal: print straight even when the report is longer than "
        "the screen (default: through $KB_PAGER, $PAGER or less, as git does)",
    )
    p.set_defaults(func=run, one_shot=True)  # kb.cli.one_shot: no collector, no teardown


def run(args: argparse.Namespace) -> int:
    from dsl.catalogue.load import held_fingerprint

    with held_fingerprint():  # the catalogue's files walked once per run, not once per line
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from kb.evidence import progressbar
    from kb.evidence.summary import render_summary
    from kb.match.diagnose import diagnose_bundle, read_bundle

    args.evidence = evidence_path(args)
    if args.evidence != "-" and not os.path.exists(args.evidence):
        print(f"kb diagnose: no such file or folder: {args.evidence}", file=sys.stderr)
        return EXIT_USAGE
    kb = load_kb(args, records=True)  # a warm run imports neither pydantic nor the model
    if args.case and kb.get(args.case) is None:
        known = ", ".join(sorted(c.case.id for c in kb.cases))
        print(f"kb diagnose: no case `{args.case}` (known: {known})", file=sys.stderr)
        return EXIT_USAGE
    with progressbar.shown(args.format != "json"):  # stderr, and only at a terminal
        bundle = read_bundle(kb, args.evidence, workers=args.workers)
    diagnosis = diagnose_bundle(kb, bundle, only=args.case)
    if args.format == "json":  # each renderer imported only for its own format
        from kb.report.json_report import render_json

        sys.stdout.write(render_json(diagnosis, kb, facts=bundle.facts))
    elif args.format == "markdown":
        from kb.report.markdown import render_markdown

        sys.stdout.write(render_markdown(diagnosis, kb, facts=bundle.facts))
    else:
        from kb.report.text import write_text

        summary = "" if args.no_summary else render_summary(bundle)
        verbose = getattr(args, "verbose", False)
        write_text(diagnosis, kb, summary=summary, facts=bundle.facts, verbose=verbose,
                   pager=not args.no_pager)  # fmt: skip
    return EXIT_MATCH if diagnosis.matches else EXIT_NO_MATCH
