"""The knowledge-base snapshot's plain records (kb.cache.records) stand in for the model: the
same attributes and values, the methods the runtime calls answering alike, the same verdicts
and reports from them, and back to the model for the commands that read it."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from dsl.api import DEFAULT_CASES
from dsl.choices import LOG_KINDS
from dsl.compiler import KnowledgeBase, load_knowledge_base
from dsl.explain import describe_query
from dsl.kinds import KINDS
from dsl.kinds.log import LogQuery
from dsl.span import Span
from kb.cache import records
from kb.match.diagnose import diagnose_bundle, read_bundle
from kb.report.json_report import render_json
from kb.report.markdown import render_markdown

ROOT = Path(__file__).resolve().parents[3]


@lru_cache(maxsize=1)
def _kb() -> tuple[KnowledgeBase, Any]:
    kb = load_knowledge_base(with_env=False)
    return kb, records.to_records(kb)


def _models(obj: object, seen: set[int]) -> list[BaseModel]:
    """Every pydantic object reachable from `obj`, each once."""
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    if isinstance(obj, BaseModel):
        children: list[object] = [getattr(obj, n) for n in type(obj).model_fields]
        return [obj] + [m for c in children for m in _models(c, seen)]
    if isinstance(obj, dict):
        return [m for c in obj.values() for m in _models(c, seen)]
    if isinstance(obj, list | tuple):
        return [m for c in obj for m in _models(c, seen)]
    return []


def test_log_kinds_are_the_kinds_whose_model_is_a_log_query() -> None:
    assert {name for name, kind in KINDS.items() if issubclass(kind.model, LogQuery)} == LOG_KINDS


def test_a_record_has_every_attribute_of_its_model() -> None:
    kb, plain = _kb()
    assert isinstance(plain, records.Record) and not isinstance(plain, BaseModel)
    for model, record in zip(kb.cases, plain.cases, strict=True):
        for name in type(model).model_fields:
            assert hasattr(record, name)
        assert record.case.id == model.case.id
        assert [q.name for q in record.case.queries] == [q.name for q in model.case.queries]
    kinds = {type(m).__name__ for c in kb.cases for m in _models(c, set())}
    made = {m._model.rpartition(".")[2] for m in _walk(plain)}
    assert kinds - {"Span"} <= made  # every kind of model object became a record


def _walk(obj: object) -> list[records.Record]:
    if isinstance(obj, records.Record):
        return [obj] + [r for v in vars(obj).values() for r in _walk(v)]
    if isinstance(obj, dict):
        return [r for v in obj.values() for r in _walk(v)]
    if isinstance(obj, list | tuple):
        return [r for v in obj for r in _walk(v)]
    return []


def test_the_methods_the_runtime_calls_answer_as_the_models_do() -> None:
    kb, plain = _kb()
    assert plain.ok == kb.ok
    assert [p.key for p in plain.scan_patterns()] == [p.key for p in kb.scan_patterns()]
    for compiled in kb.cases:
        record = plain.get(compiled.case.id)
        assert record is not None and record.source_path == compiled.source_path
        assert record.plan() == compiled.plan()
        for q in compiled.case.queries:
            got = record.case.query(q.name)
            assert got is not None and got.name == q.name and got.kind == q.kind
            assert describe_query(got) == describe_query(q)  # made when written
            if isinstance(q, LogQuery):
                assert got.pattern.ignore_case == q.pattern.ignore_case
        assert record.case.query("no-such-query") is None
    assert plain.get("no-such-case") is None


def test_source_positions_are_one_shared_empty_record() -> None:
    kb, plain = _kb()
    assert any(m.span.path for c in kb.cases for m in _models(c, set()) if hasattr(m, "span"))
    spans = [r for r in _walk(plain) if r._model == "dsl.span.Span"]
    assert spans and len({id(s) for s in spans}) == 1
    assert vars(spans[0]) == Span().__dict__


def test_records_are_frozen_as_their_models_are() -> None:
    _, plain = _kb()
    case = plain.cases[0].case
    with pytest.raises(AttributeError):
        case.id = "other"
    plain.cache_hits = 3  # the knowledge base is not frozen: load_kb counts its cache hits
    assert plain.cache_hits == 3


def test_back_to_the_model() -> None:
    kb, plain = _kb()
    again = records.to_models(plain)
    assert isinstance(again, KnowledgeBase)
    assert again.cases == kb.cases  # positions aside, as the model compares
    assert again.diagnostics == kb.diagnostics


FOLDERS = [
    ROOT / "examples" / "hang-at-eval-8gpu",
    *sorted(DEFAULT_CASES.glob("*/fixtures/positive/*"))[::25],
    *sorted(DEFAULT_CASES.glob("*/fixtures/negative/*"))[::25],
]


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: f"{p.parts[-3]}/{p.name}")
def test_the_same_report_from_records(folder: Path) -> None:
    kb, plain = _kb()
    by_models, by_records = (read_bundle(k, str(folder), workers=1) for k in (kb, plain))
    from_models = diagnose_bundle(kb, by_models)
    from_records = diagnose_bundle(plain, by_records)
    for render in (render_json, render_markdown):
        assert render(from_records, plain, facts=by_records.facts) == render(
            from_models, kb, facts=by_models.facts
        )
