"""`kb compile`: build (or refresh) the compiled knowledge base; `--show ID` prints a checker."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kb.cli.common import add_cases_option, load_kb
from kb.cli.options import exit_status

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
EXIT_STATUS = exit_status(
    (EXIT_OK, "every case compiled (or --show printed every case asked for)"),
    (EXIT_PROBLEMS, "a case did not compile (run kb check for details)"),
    (EXIT_USAGE, "usage error, or --show of a case that does not exist"),
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compile",
        help="compile case files into checkers (cached)",
        description="Compile every case into an executable checker. Compiled "
        "checkers are cached by content hash; edited cases recompile.",
        epilog=EXIT_STATUS,
    )
    add_cases_option(p)
    p.add_argument(
        "--show",
        metavar="CASE-ID",
        action="append",
        default=[],
        help="print the compiled checker of a case in readable form",
    )
    p.add_argument("--output", "-o", type=Path, help="also write the compiled base as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dsl.compiler import dump_knowledge_base

    kb = load_kb(args)
    if args.show:
        status = EXIT_OK
        for case_id in args.show:
            compiled = kb.get(case_id)
            if compiled is None:
                known = ", ".join(sorted(c.case.id for c in kb.cases))
                print(f"kb compile: no case `{case_id}` (known: {known})", file=sys.stderr)
                status = EXIT_USAGE
                continue
            print(compiled.plan())
            print()
        return status
    if args.output:
        args.output.write_text(dump_knowledge_base(kb), encoding="utf-8")
    fresh = len(kb.cases) - kb.cache_hits
    patterns = len(kb.scan_patterns())
    print(
        f"compiled {len(kb.cases)} case(s) ({fresh} recompiled, {kb.cache_hits} from cache), "
        f"{patterns} scan pattern(s)"
    )
    return EXIT_OK if kb.ok else EXIT_PROBLEMS
