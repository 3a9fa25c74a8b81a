"""The whole-knowledge-base snapshot (kb.cache.knowledge): a warm load reads it instead of
compiling, an edit to a case rebuilds it, and a corrupt or foreign file is ignored."""

from __future__ import annotations

import argparse
import shutil
from collections.abc import Iterable
from pathlib import Path

import pytest
from pydantic import BaseModel

from dsl.api import DEFAULT_CASES
from dsl.span import Span
from kb.cache import knowledge, records
from kb.cli import common

CASE = "master-port-in-use"


@pytest.fixture
def pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """One bundled case, copied into a pack of its own; a fresh cache."""
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("KB_CASES", raising=False)
    shutil.copytree(DEFAULT_CASES / CASE, tmp_path / "pack" / CASE)
    return tmp_path / "pack"


def _args(pack: Path) -> argparse.Namespace:
    return argparse.Namespace(cases=[pack], no_bundled=True, no_cache=False)


def _snapshots() -> list[Path]:
    from dsl.compiler import cache_dir

    return sorted(cache_dir().glob(f"{knowledge.PREFIX}*.pickle"))


def _no_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("compiled although the snapshot was fresh")

    monkeypatch.setattr(common, "_compile_kb", refuse)


def test_a_warm_load_reads_the_snapshot(pack: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cold = common.load_kb(_args(pack))
    assert [c.case.id for c in cold.cases] == [CASE]
    assert len(_snapshots()) == 1
    _no_compiling(monkeypatch)
    warm = common.load_kb(_args(pack))
    assert warm.cases == cold.cases
    assert warm.scan_patterns() == cold.scan_patterns()
    assert warm.cache_hits == 1


def test_an_edited_case_is_compiled_again(pack: Path) -> None:
    common.load_kb(_args(pack))
    case_file = pack / CASE / "case.kb"
    text = case_file.read_text(encoding="utf-8")
    marker = "Edited for the snapshot test"
    assert 'summary """\n    A job' in text
    edited = text.replace('summary """\n    A job', f'summary """\n    {marker}. A job', 1)
    case_file.write_text(edited, encoding="utf-8")
    again = common.load_kb(_args(pack))
    assert [c.case.id for c in again.cases] == [CASE]
    assert marker in again.cases[0].case.model_dump_json()
    assert len(_snapshots()) == 2


@pytest.mark.parametrize("damage", ["garbage", "truncated", "foreign-key", "body-changed"])
def test_a_corrupt_or_foreign_snapshot_is_ignored(
    pack: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    cold = common.load_kb(_args(pack))
    (path,) = _snapshots()
    blob = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(b"\x80\x05not a pickle at all")
    elif damage == "truncated":
        path.write_bytes(blob[: len(blob) // 2])
    elif damage == "foreign-key":
        path.write_bytes(blob.replace(blob[len(knowledge.MAGIC) : len(knowledge.MAGIC) + 8],
                                      b"00000000", 1))  # fmt: skip
    else:
        path.write_bytes(blob[:-10] + b"0123456789")
    key = knowledge.snapshot_key([pack])
    assert key is not None and knowledge.load(key) is None
    rebuilt = common.load_kb(_args(pack))  # no crash: compiled again, snapshot rewritten
    assert rebuilt.cases == cold.cases
    assert knowledge.load(key) is not None


def test_no_cache_neither_reads_nor_writes_it(pack: Path) -> None:
    args = _args(pack)
    args.no_cache = True
    assert [c.case.id for c in common.load_kb(args).cases] == [CASE]
    assert _snapshots() == []


def test_a_broken_case_is_reported_the_same_from_the_snapshot(
    pack: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = pack / "broken-case" / "case.kb"
    broken.parent.mkdir()
    broken.write_text("case broken-case {\n  title \n", encoding="utf-8")
    cold = common.load_kb(_args(pack))
    cold_err = capsys.readouterr().err
    assert "broken-case" in cold_err and "^" in cold_err  # the caret needs the source text
    _no_compiling(monkeypatch)
    warm = common.load_kb(_args(pack))
    assert capsys.readouterr().err == cold_err
    assert warm.diagnostics == cold.diagnostics
    assert [c.case.id for c in warm.cases] == [CASE]
    assert all(path in {d.path for d in warm.diagnostics} for path in warm.sources)


def _spans(obj: object, seen: set[int] | None = None) -> list[Span]:
    """Every `Span` reachable from `obj` through model fields, lists, tuples and dicts."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    if isinstance(obj, Span):
        return [obj]
    if isinstance(obj, BaseModel):
        children: Iterable[object] = [getattr(obj, name) for name in type(obj).model_fields]
    elif isinstance(obj, dict):
        children = list(obj.values())
    elif isinstance(obj, list | tuple):
        children = obj
    else:
        return []
    return [span for child in children for span in _spans(child, seen)]


def test_the_snapshot_holds_no_source_position(pack: Path) -> None:
    """Spans are half the snapshot's objects and nothing that loads it reads them: they are
    stored as one shared empty Span (a third of a warm load when they were not)."""
    cold = common.load_kb(_args(pack))
    assert any(span.path for span in _spans(cold))  # the test can fail: compiled ones have them
    key = knowledge.snapshot_key([pack])
    assert key is not None
    plain = knowledge.load(key)
    assert isinstance(plain, records.Record)  # what a warm `kb diagnose` reads
    warm = records.to_models(plain)  # what the other commands read
    assert warm.cases == cold.cases
    spans = _spans(warm)
    assert spans and all(span == Span() for span in spans)
    assert len({id(span) for span in spans}) == 1


def test_the_loaded_knowledge_is_left_out_of_collections(
    pack: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once per process the cyclic collector stops walking what load_kb leaves alive."""
    frozen: list[int] = []
    monkeypatch.setattr(common, "_frozen", False)
    monkeypatch.setattr(common.gc, "freeze", lambda: frozen.append(1))
    common.load_kb(_args(pack))
    common.load_kb(_args(pack))
    assert frozen == [1]
