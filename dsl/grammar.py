"""The case grammar, built once per process into an LALR parser (lark caches it on disk).

Its own module so the parser and the syntax-error heuristics both use it without importing
each other.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from lark import Lark


@lru_cache(maxsize=1)
def case_parser() -> Lark:
    grammar = resources.files("dsl").joinpath("grammar.lark").read_text(encoding="utf-8")
    return Lark(
        grammar,
        parser="lalr",
        propagate_positions=True,
        maybe_placeholders=False,
        lexer_callbacks={},
    )


@lru_cache(maxsize=1)
def catalogue_parser() -> Lark:
    """The same grammar from its `catalogue` rule: a file of declarations (dsl/catalogue/)."""
    grammar = resources.files("dsl").joinpath("grammar.lark").read_text(encoding="utf-8")
    return Lark(
        grammar,
        parser="lalr",
        start="catalogue",
        propagate_positions=True,
        maybe_placeholders=False,
        lexer_callbacks={},
    )
