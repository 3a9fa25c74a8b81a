"""Every exported ES|QL query (base rules, correlations, the case alerts) parses with
Elasticsearch's own ES|QL grammar: the ANTLR lexer and parser of Elasticsearch 9.1.3, as
packaged by `esql-parser` (a `dev` dependency). No Elasticsearch runs here, so this checks the
language, not the results; the results are checked in DuckDB (test_duckdb_replay.py).
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("sigma.backends.elasticsearch", reason="extra `fleet`")
pytest.importorskip("esql_parser", reason="`dev` extra (esql-parser)")

import antlr4
from antlr4.error.ErrorListener import ErrorListener
from esql_parser.EsqlBaseLexer import EsqlBaseLexer
from esql_parser.EsqlBaseParser import EsqlBaseParser

from dsl.compiler import load_knowledge_base
from kb.export.alert_queries import convert_case
from kb.export.sigma import case_rules

pytestmark = pytest.mark.slow  # parses every exported ES|QL query with Elasticsearch's grammar


class _Errors(ErrorListener):
    def __init__(self) -> None:
        self.found: list[str] = []

    def syntaxError(self, *args: Any) -> None:  # ANTLR's name for the callback
        _recognizer, _symbol, line, column, message, _exc = args
        self.found.append(f"{line}:{column} {message}")


def esql_errors(query: str) -> list[str]:
    """The syntax errors Elasticsearch's ES|QL grammar reports (a lexer that loses its mode
    stack, as on a raw line break inside a string, counts as one)."""
    errors = _Errors()
    lexer = EsqlBaseLexer(antlr4.InputStream(query))
    lexer.removeErrorListeners()
    lexer.addErrorListener(errors)
    parser = EsqlBaseParser(antlr4.CommonTokenStream(lexer))
    parser.removeErrorListeners()
    parser.addErrorListener(errors)
    try:
        parser.singleStatement()
    except Exception as exc:  # antlr4's runtime raises a bare Exception("Empty Stack")
        errors.found.append(f"lexer: {exc}")
    return errors.found


def test_the_grammar_check_can_fail() -> None:
    assert esql_errors('from logs | where line rlike ".*a.*"\n| keep job') == []
    assert esql_errors('from logs | where line rlike ".*a.*" and')
    assert esql_errors('from logs | where line rlike ".*[^ \n].*"')  # a raw LF in a string
    assert esql_errors('from logs | where line rlike ".*\\q.*"')  # an escape ES|QL has not


def test_every_exported_esql_query_parses() -> None:
    problems, alerts = [], 0
    for compiled in load_knowledge_base(with_env=False).cases:
        for q in convert_case("elasticsearch", case_rules(compiled.case, "x")).queries:
            if not q.query:
                continue
            alerts += q.rule_name.endswith("/alert")
            found = esql_errors(q.query)
            if q.error or found:
                problems.append(f"{q.rule_name}: {q.error or found[:2]}")
    assert alerts >= 30
    assert not problems, "\n".join(problems[:20])
