"""`kb compile`: build (or refresh) the compiled knowledge base; `--show ID` prints a checker."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dsl.compiler import dump_knowledge_base
from kb.cli.common import add_cases_option, load_kb


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compile",
        help="compile case files into checkers (cached)",
        description="Compile every case into an executable checker. Compiled "
        "checkers are cached by content hash; edited cases recompile.",
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
    kb = load_kb(args)
    if args.show:
        status = 0
        for case_id in args.show:
            compiled = kb.get(case_id)
            if compiled is None:
                known = ", ".join(sorted(c.case.id for c in kb.cases))
                print(f"kb compile: no case `{case_id}` (known: {known})", file=sys.stderr)
                status = 2
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
    return 0 if kb.ok else 1
