"""Running a case's fixtures once for every lint rule that needs their outcome.

Reuses `kb.fixtures` (its compiled knowledge base and diagnosis caches), so `kb check` after
`kb test` costs little; a fixture that cannot be read becomes a warning, never a crash.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from dsl import model as m

if TYPE_CHECKING:
    from dsl.compiler import CompiledCase
    from kb.fixtures import FixtureSpec


@dataclass
class FixtureRun:
    path: str  # "positive/two-ranks"
    positive: bool
    known_gap: bool
    truths: dict[str, str] = field(default_factory=dict)  # query name -> true/false/unknown
    ranking: list[tuple[str, float]] = field(
        default_factory=list
    )  # named ids, any level, best first
    error: str | None = None


def fixture_runs(case: m.Case) -> list[FixtureRun]:
    """One run per fixture folder on disk; empty when the case does not compile."""
    if not case.folder:
        return []
    return list(_runs(case.id, str(Path(case.folder).resolve())))


@lru_cache(maxsize=256)
def _runs(case_id: str, folder: str) -> tuple[FixtureRun, ...]:
    from kb.fixtures import default_roots, fixtures_of, knowledge_base_for

    roots = default_roots(Path(folder))
    kb = knowledge_base_for(roots)
    compiled = next(
        (
            c
            for c in kb.cases
            if c.case.id == case_id and Path(c.case.folder).resolve() == Path(folder)
        ),
        None,
    )
    if compiled is None:
        return ()
    runs = []
    for spec in fixtures_of(compiled.case):
        if not spec.folder.is_dir():
            continue  # `kb check` reports declared-but-missing folders itself
        run = FixtureRun(spec.path, spec.positive, spec.expectation.todo is not None)
        try:
            _fill(run, spec, roots, compiled)
        except Exception as exc:  # evidence reading must never take `kb check` down
            run.error = f"{type(exc).__name__}: {exc}"
        runs.append(run)
    return tuple(runs)


def _fill(
    run: FixtureRun, spec: FixtureSpec, roots: tuple[str, ...], compiled: CompiledCase
) -> None:
    from kb.fixtures import check_fixture, knowledge_base_for
    from kb.match.diagnose import read_bundle, run_case

    outcome = check_fixture(spec, roots)
    diagnosis = outcome.diagnosis
    if diagnosis is None:
        run.error = "; ".join(outcome.problems) or "not diagnosed"
        return
    run.ranking = [(v.id, v.score) for v in diagnosis.ranked]
    verdict = outcome.verdict or next(
        (v for v in diagnosis.near_misses if v.id == spec.case_id), None
    )
    if verdict is None:  # not among the matches or near misses: evaluate this case alone
        kb = knowledge_base_for(roots)
        verdict = run_case(compiled, read_bundle(kb, str(spec.folder), workers=1))
    run.truths = {q.name: q.truth.value for q in verdict.queries}
