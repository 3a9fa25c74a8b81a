"""Options and loading shared by the sub-commands (case packs, knowledge base)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used: `kb --help` must not pay for the language
    from dsl.compiler import KnowledgeBase


def add_cases_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cases",
        action="append",
        default=[],
        metavar="DIR",
        type=Path,
        help="add a folder of cases (repeatable); KB_CASES adds more, like PATH",
    )
    parser.add_argument(
        "--no-bundled",
        action="store_true",
        help="use only the --cases folders, not the bundled cases",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="recompile every case instead of using the compile cache",
    )


def case_roots(args: argparse.Namespace) -> list[Path]:
    """Bundled cases (unless --no-bundled), then --cases folders, then KB_CASES folders."""
    from dsl.api import DEFAULT_CASES, case_paths_from_env

    roots: list[Path] = [] if args.no_bundled else [DEFAULT_CASES]
    return roots + list(args.cases) + case_paths_from_env()


def load_kb(args: argparse.Namespace) -> KnowledgeBase:
    """The compiled knowledge base; broken cases are reported on stderr and left out."""
    from dsl.compiler import load_knowledge_base
    from dsl.diagnostics import render_all
    from kb.lint.drafts import leave_out_drafts

    kb = load_knowledge_base(case_roots(args), use_cache=not args.no_cache, with_env=False)
    leave_out_drafts(kb)  # a draft (TODO text, generic evidence) must not name a cause
    if kb.diagnostics:
        errors = [d for d in kb.diagnostics if d.severity.value == "error"]
        if errors:
            print(
                f"kb: {len(errors)} problem(s) in case files; cases that do not compile "
                "or are unfinished drafts are left out (run `kb check` for details)",
                file=sys.stderr,
            )
            print(render_all(errors[:5], kb.sources), file=sys.stderr)
    return kb
