"""A short run of the fuzzers in `scripts/fuzz.py` (the long run is that script): mutated real
cases and hostile evidence folders/archives must give located errors or reports, never an
exception, invalid JSON or a control character on the terminal."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import fuzz

SHORT = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    return fuzz.real_cases()


@SHORT
@given(seed=st.integers(0, 2**32 - 1))
def test_mutated_cases_get_located_errors_never_a_crash(
    seed: int, corpus: list[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    rng = random.Random(seed)
    text = (
        fuzz.nested_case(rng) if rng.random() < 0.2 else fuzz.mutate_case(rng.choice(corpus), rng)
    )
    assert fuzz.check_case_text(text, tmp_path_factory.mktemp("case")) == []


@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(0, 2**32 - 1))
def test_hostile_evidence_is_reported_never_a_crash(
    seed: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    kb, lines = _kb_and_lines()
    path = fuzz.build_evidence(tmp_path_factory.mktemp("ev"), lines, random.Random(seed))
    assert fuzz.check_evidence(kb, path) == []


def test_the_fuzzer_can_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The property checks must notice an unlocated error and a raw escape sequence."""
    from dsl.api import LoadResult
    from dsl.diagnostics import Diagnostic
    from kb.report import text as text_report

    unlocated = LoadResult(diagnostics=[Diagnostic(path="x.kb", message="lost")])
    with monkeypatch.context() as patch:
        patch.setattr(fuzz, "load_cases", lambda *a, **k: unlocated)
        assert fuzz.check_case_text("case x {}", tmp_path) != []

    kb, _ = _kb_and_lines()
    monkeypatch.setattr(text_report, "safe_for_terminal", lambda s: s + "\x1b[2J")
    example = Path(__file__).resolve().parents[1] / "examples" / "hang-at-eval-8gpu"
    assert any("control" in p for p in fuzz.check_evidence(kb, example))  # type: ignore[arg-type]


_CACHE: dict[str, object] = {}


def _kb_and_lines() -> tuple[object, list[bytes]]:
    if not _CACHE:
        from dsl.compiler import load_knowledge_base

        _CACHE["kb"] = load_knowledge_base(with_env=False)
        _CACHE["lines"] = fuzz.fixture_lines()
    return _CACHE["kb"], _CACHE["lines"]  # type: ignore[return-value]
