"""Options and loading shared by the sub-commands (case packs, knowledge base)."""

from __future__ import annotations

import argparse
import gc
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
    from dsl.casefiles import DEFAULT_CASES, case_paths_from_env

    roots: list[Path] = [] if args.no_bundled else [DEFAULT_CASES]
    return roots + list(args.cases) + case_paths_from_env()


def load_kb(args: argparse.Namespace, records: bool = False) -> KnowledgeBase:
    """The compiled knowledge base; broken cases are reported on stderr and left out. With
    `records`, a warm load hands over the snapshot's plain records (`kb.cache.records`: read
    like the model, without importing it); only `kb diagnose` reads nothing else of it."""
    roots = case_roots(args)
    kb = None if args.no_cache else _from_snapshot(roots, records)
    if kb is None:
        kb = _compile_kb(roots, use_cache=not args.no_cache)
    _out_of_collections()
    if kb.diagnostics:
        errors = [d for d in kb.diagnostics if d.severity.value == "error"]
        if errors:
            print(
                f"kb: {len(errors)} problem(s) in case files; cases that do not compile "
                "or are unfinished drafts are left out (run `kb check` for details)",
                file=sys.stderr,
            )
            from dsl.diagnostics import render_all

            print(render_all(errors[:5], kb.sources), file=sys.stderr)
    return kb


_frozen = False


def _out_of_collections() -> None:
    """Move what is alive now (the knowledge base: ~25,000 containers that live as long as the
    command) out of the cyclic collector's reach, once per process: each full collection
    and the one at exit walked all of them again (0.05 s of a warm `kb diagnose`). Freed by
    reference counting as before; only a cycle among them would now outlive its use."""
    global _frozen
    if not _frozen:
        _frozen = True
        gc.freeze()


def _compile_kb(roots: list[Path], use_cache: bool) -> KnowledgeBase:
    from dsl.compiler import load_knowledge_base
    from kb.lint.drafts import leave_out_drafts

    kb = load_knowledge_base(roots, use_cache=use_cache, with_env=False)
    leave_out_drafts(kb)  # a draft (TODO text, generic evidence) must not name a cause
    if use_cache:
        from kb.cache import knowledge

        key = knowledge.snapshot_key(roots)
        if key is not None:
            knowledge.store(key, kb)
    return kb


def _from_snapshot(roots: list[Path], records: bool) -> KnowledgeBase | None:
    """The whole knowledge base from its snapshot when nothing it depends on changed: its
    records, or (not `records`) the model objects they stand in for."""
    from kb.cache import knowledge

    key = knowledge.snapshot_key(roots)
    kb = knowledge.load(key) if key is not None else None
    if kb is not None and not records:
        from kb.cache.records import to_models

        kb = to_models(kb)
    if kb is not None:
        kb.cache_hits = len(kb.cases)  # `kb compile` reports them as read from the cache
    return kb
