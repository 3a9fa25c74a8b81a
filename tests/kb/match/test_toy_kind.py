"""A query kind is one module plus one registry line: a toy kind defined in this file alone
(fields, model, lowering, validation, description, evaluator) is parsed, checked, compiled,
cached, described and matched like a bundled one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest

from dsl import syntax as s
from dsl.compiler import load_knowledge_base
from dsl.diagnostics import Diagnostic
from dsl.explain import describe_query
from dsl.fields import INT, Field
from dsl.kinds import KINDS
from dsl.kinds.base import Lowering, Phrase, Query, QueryKind
from kb.match.context import Context
from kb.match.diagnose import diagnose_bundle, read_bundle
from kb.match.kinds import EVALUATORS, registered
from kb.match.results import QueryResult, Truth
from kb.site import describe

# ------------------------------------------------------------------ the toy kind, one module


class FileCountQuery(Query):
    kind: Literal["file_count"] = "file_count"
    at_least: int


def _lower(
    node: s.EvidenceNode, v: dict[str, Any], common: dict[str, Any], lowering: Lowering
) -> FileCountQuery:
    return FileCountQuery(at_least=v["at_least"], **common)


def _check(q: FileCountQuery) -> Iterator[Diagnostic]:
    if q.at_least < 1:
        yield Diagnostic.at(
            q.span, f"`{q.name}`: at_least must be 1 or more", code="impossible-query"
        )


def _describe(q: FileCountQuery) -> Phrase:
    return (f"At least {q.at_least} files were handed over",)


def _evaluate(q: FileCountQuery, ctx: Context) -> QueryResult:
    n = len(ctx.facts.files)
    truth = Truth.TRUE if n >= q.at_least else Truth.FALSE
    return QueryResult(name=q.name, kind=q.kind, truth=truth, detail=f"{n} file(s)")


TOY = QueryKind(
    name="file_count",
    model=FileCountQuery,
    fields=(Field("at_least", INT, "How many."),),
    required=("at_least",),
    lower=_lower,
    describe=_describe,
    check=_check,
    words="number of files",
)

# ------------------------------------------------------------------ a case that uses it

CASE = """
case toy-many-files {
  title "Many files"
  summary "The evidence holds several files."
  evidence many: file_count {
    describe "several files"
    at_least %s
  }
  match {
    require many
  }
}
"""


@pytest.fixture
def toy_kind() -> Iterator[QueryKind]:
    with registered(TOY, _evaluate) as kind:  # the one registry line
        yield kind
    assert "file_count" not in KINDS and "file_count" not in EVALUATORS


def _pack(tmp_path: Path, at_least: int) -> Path:
    case = tmp_path / "cases" / "toy-many-files"
    case.mkdir(parents=True)
    (case / "case.kb").write_text(CASE % at_least, encoding="utf-8")
    return tmp_path / "cases"


def _evidence(tmp_path: Path, files: int) -> str:
    folder = tmp_path / "evidence"
    folder.mkdir()
    for i in range(files):
        (folder / f"rank{i}.log").write_text("hello\n", encoding="utf-8")
    return str(folder)


def test_a_toy_kind_runs_end_to_end(
    toy_kind: QueryKind, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    pack = _pack(tmp_path, 2)
    kb = load_knowledge_base([pack], with_env=False)
    assert kb.diagnostics == []
    cached = load_knowledge_base([pack], with_env=False)  # read back from the compile cache
    assert cached.cache_hits == 1
    compiled = cached.get("toy-many-files")
    assert compiled is not None
    q = compiled.case.queries[0]
    assert isinstance(q, FileCountQuery) and q.at_least == 2
    assert describe_query(q) == "file_count: At least 2 files were handed over"
    assert describe.query(q) == "At least 2 files were handed over"

    two = diagnose_bundle(cached, read_bundle(cached, _evidence(tmp_path, 2)))
    assert [v.id for v in two.matches] == ["toy-many-files"]


def test_the_toy_kind_says_no_and_is_checked(
    toy_kind: QueryKind, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    kb = load_knowledge_base([_pack(tmp_path, 3)], with_env=False)
    assert diagnose_bundle(kb, read_bundle(kb, _evidence(tmp_path, 2))).matches == []

    other = tmp_path / "other"
    other.mkdir()
    bad = load_knowledge_base([_pack(other, 0)], with_env=False)
    assert [d.code for d in bad.diagnostics] == ["impossible-query"]


def test_without_registration_the_kind_is_unknown(tmp_path: Path) -> None:
    kb = load_knowledge_base([_pack(tmp_path, 2)], with_env=False, use_cache=False)
    assert [d.code for d in kb.diagnostics if d.severity.value == "error"] == ["unknown-kind"]


def test_every_kind_of_the_language_has_an_evaluator() -> None:
    assert set(KINDS) == set(EVALUATORS)
