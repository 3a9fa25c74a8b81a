"""`kb export sigma|loki|elasticsearch|lucene|duckdb -o DIR`: the cases' log evidence as
Sigma rules, or as a platform's queries through pySigma (extra `fleet`); `kb export jsonl`:
an evidence folder as the JSON lines a log shipper sends (to replay the rules on it).

Exit codes: 0 written and valid; 1 written, with rules that did not validate or convert
(listed on stderr); 2 usage error or the extra `fleet` is not installed.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from kb.cli.common import add_cases_option, load_kb
from kb.cli.options import STDIN, exit_status
from kb.cli.stdin_file import stdin_as_file

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
EXIT_STATUS = exit_status(
    (EXIT_OK, "written and valid"),
    (EXIT_PROBLEMS, "written, with rules that did not validate or convert (listed on stderr)"),
    (EXIT_USAGE, "usage error, or the extra `fleet` is not installed"),
)
TARGETS = ("sigma", "loki", "elasticsearch", "lucene", "duckdb", "jsonl")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export",
        help="the cases as Sigma rules or Loki/Elasticsearch/DuckDB queries",
        description="Write every case's log evidence as Sigma rules (one file per case) or "
        "convert them with pySigma; `jsonl` ships an evidence folder as JSON lines.",
        epilog=EXIT_STATUS,
    )
    p.add_argument(
        "target",
        choices=TARGETS,
        help="sigma: the rules themselves; loki, elasticsearch, lucene, duckdb: converted "
        "queries; jsonl: an evidence folder as the JSON lines a log shipper sends",
    )
    p.add_argument(
        "-o",
        "--output",
        type=Path,
        required=True,
        metavar="PATH",
        help="folder to write (a file for jsonl)",
    )
    add_cases_option(p)
    p.add_argument(
        "--case",
        action="append",
        default=[],
        metavar="ID",
        help="export only this case (repeatable)",
    )
    p.add_argument(
        "--format",
        default="default",
        help="backend output format, e.g. loki `ruler` (alert rules), "
        "elasticsearch `siem_rule_ndjson`; default: one query per rule",
    )
    p.add_argument(
        "--site",
        default=None,
        metavar="URL",
        help="site the rules link to (default: KB_SITE_URL or the local site)",
    )
    p.add_argument(
        "--evidence",
        "-e",
        metavar="PATH",
        help="jsonl: the evidence to ship (folder, archive, single file, or - for stdin)",
    )
    p.add_argument("--job", default="job-1", help="jsonl: the job name records carry")
    p.set_defaults(func=run)


def _fleet_missing(target: str) -> bool:
    import importlib.util

    needed = {
        "loki": "sigma.backends.loki",
        "elasticsearch": "sigma.backends.elasticsearch",
        "lucene": "sigma.backends.elasticsearch",
        "duckdb": "sigma_backend_duckdb",
    }
    modules = ["sigma", needed[target]] if target in needed else ["sigma"]
    try:
        return any(importlib.util.find_spec(m) is None for m in modules)
    except ModuleNotFoundError:
        return True


def _jsonl(args: argparse.Namespace) -> int:
    from kb.export.shipper import write_jsonl

    if args.evidence != STDIN and (not args.evidence or not Path(args.evidence).exists()):
        print(
            "kb export jsonl: --evidence PATH (an existing folder or file, or - for stdin) "
            "is required",
            file=sys.stderr,
        )
        return EXIT_USAGE
    with contextlib.ExitStack() as stack:
        root = (
            stack.enter_context(stdin_as_file("kb export jsonl"))
            if args.evidence == STDIN
            else None
        )
        n = write_jsonl(root or Path(args.evidence), args.job, args.output)
    print(f"{args.output}: {n} record(s)")
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    from kb.export.backends import INSTALL_HINT

    if args.target == "jsonl":
        return _jsonl(args)
    if _fleet_missing(args.target):
        print(
            f"kb export {args.target}: needs pySigma and its backends: {INSTALL_HINT}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    from kb.export.sigma import case_rules
    from kb.match.diagnose import site_page

    kb = load_kb(args)
    unknown = [c for c in args.case if kb.get(c) is None]
    if unknown:
        print(f"kb export: no case {', '.join(unknown)}", file=sys.stderr)
        return EXIT_USAGE
    site = args.site or site_page("x").rsplit("/cases/", 1)[0]
    cases = [c.case for c in kb.cases if not args.case or c.case.id in args.case]
    exported = [case_rules(case, site) for case in cases]
    from kb.export.writer import write_backend, write_sigma

    if args.target == "sigma":
        return EXIT_OK if write_sigma(exported, args.output) else EXIT_PROBLEMS
    ok = write_backend(
        args.target, args.format, exported, args.output, {case.id: case for case in cases}
    )
    return EXIT_OK if ok else EXIT_PROBLEMS
