"""Running a case's fixtures: the machinery behind the pytest plugin and `kb test`.

A fixture is a folder under `cases/<id>/fixtures/positive/` or `.../negative/`. Folders
found on disk are expected to match (positive) or not (negative) by default; a `fixture`
block in the case file adds the culprit rank, the evidence lines the verdict must show,
or a `todo` that records a known gap without failing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from dsl import model as m
from dsl.api import DEFAULT_CASES, case_paths_from_env
from dsl.compiler import KnowledgeBase, load_knowledge_base
from kb.evidence.facts import EvidenceLine
from kb.evidence.inputs import INCIDENT_FILE
from kb.match.diagnose import Diagnosis, diagnose_bundle, read_bundle
from kb.match.results import Verdict

KINDS = ("positive", "negative")


@dataclass(frozen=True)
class FixtureSpec:
    case_id: str
    path: str  # "positive/two-ranks"
    folder: Path
    expectation: m.FixtureExpectation

    @property
    def positive(self) -> bool:
        return self.expectation.outcome in ("match", "possible")


@dataclass
class FixtureOutcome:
    spec: FixtureSpec
    problems: list[str] = field(default_factory=list)
    verdict: Verdict | None = None
    diagnosis: Diagnosis | None = None

    @property
    def passed(self) -> bool:
        return not self.problems

    @property
    def known_gap(self) -> bool:
        return self.spec.expectation.todo is not None


def _own_folder(path: Path, base: Path) -> bool:
    """A real folder of the case itself: not a link, and resolving under its fixtures."""
    try:
        return (
            not path.is_symlink()
            and path.is_dir()
            and path.resolve().parent == base
            and m.safe_fixture_path(f"positive/{path.name}")
        )
    except OSError:
        return False


def linked_part(path: Path, top: Path) -> Path | None:
    """The first of `path` and its parents below `top` that is a symbolic link, if any: a
    fixture reached through a link is evidence from outside the case (`kb check` reports
    it; `kb test` and the site never follow it)."""
    here = path
    while here != top and here != here.parent:
        if here.is_symlink():
            return here
        here = here.parent
    return None


def fixtures_of(case: m.Case) -> list[FixtureSpec]:
    """Every fixture folder of a case, with its declared or default expectation. A folder
    that is (or sits under) a symbolic link is left out, declared or not: never run, never
    published; `kb check` reports it (`kb.lint.fixtures.fixture_links`)."""
    case_folder = Path(case.folder)
    root = case_folder / "fixtures"
    declared = {f.path.strip("/"): f for f in case.fixtures}
    specs: dict[str, FixtureSpec] = {}
    for kind in KINDS:
        base = root / kind
        if not base.is_dir() or linked_part(base, case_folder) is not None:
            continue
        inside = base.resolve()
        for folder in sorted(p for p in base.iterdir() if _own_folder(p, inside)):
            rel = f"{kind}/{folder.name}"
            expectation = declared.get(rel) or m.FixtureExpectation(
                path=rel, outcome="match" if kind == "positive" else "no-match"
            )
            specs[rel] = FixtureSpec(case.id, rel, folder, expectation)
    for rel, expectation in declared.items():
        if not m.safe_fixture_path(rel):
            continue  # never a folder outside the case: `kb check` rejects it with its line
        if linked_part(root / rel, case_folder) is not None:
            continue  # a link: `kb check` reports it with its path
        if rel not in specs:  # declared but missing on disk: `kb check` reports it too
            specs[rel] = FixtureSpec(case.id, rel, root / rel, expectation)
    return list(specs.values())


@lru_cache(maxsize=4)
def knowledge_base_for(roots: tuple[str, ...]) -> KnowledgeBase:
    """Cached per exact set of case folders; KB_CASES is already part of `roots`."""
    return load_knowledge_base([Path(r) for r in roots], with_env=False)


def default_roots(case_folder: Path | None = None) -> tuple[str, ...]:
    """The bundled cases, the pack a case lives in (so packs are tested in context) and the
    KB_CASES folders as they are now, so a changed KB_CASES never reuses a stale cache."""
    roots = [str(DEFAULT_CASES.resolve())]
    if case_folder is not None:
        roots.append(str(case_folder.resolve().parent))
    roots += [str(p.resolve()) for p in case_paths_from_env()]
    return tuple(dict.fromkeys(roots))


@lru_cache(maxsize=64)
def _diagnose_folder(roots: tuple[str, ...], folder: str) -> Diagnosis:
    kb = knowledge_base_for(roots)
    return diagnose_bundle(kb, read_bundle(kb, folder, workers=1))


def _where_matches(expected: str, line: EvidenceLine) -> bool:
    file, _, number = expected.rpartition(":")
    if not number.isdigit():
        return line.file == expected
    return line.file == file and line.line == int(number)


def check_fixture(spec: FixtureSpec, roots: tuple[str, ...] | None = None) -> FixtureOutcome:
    """Diagnose the fixture folder with the whole knowledge base and compare to expectations."""
    outcome = FixtureOutcome(spec)
    if not spec.folder.is_dir():
        outcome.problems.append(f"fixture folder {spec.folder} does not exist")
        return outcome
    roots = roots or default_roots(spec.folder.parent.parent.parent)
    diagnosis = _diagnose_folder(roots, str(spec.folder))
    outcome.diagnosis = diagnosis
    verdict = next((v for v in diagnosis.matches if v.id == spec.case_id), None)
    outcome.verdict = verdict
    exp = spec.expectation
    pool = diagnosis.matches
    if spec.positive and is_real_incident(spec.folder):
        # a real report is partial: the case must be named first, at whatever level its
        # evidence reaches (what `kb eval` counts as top-1)
        ranked = pool = diagnosis.ranked
        verdict = next((v for v in ranked if v.id == spec.case_id), None)
        outcome.verdict = verdict
        if verdict is None or ranked[0].id != spec.case_id:
            named = ", ".join(f"{v.id} ({v.level})" for v in ranked[:3]) or "no case"
            outcome.problems.append(
                f"expected {spec.case_id} to be named first on this real incident; named: {named}"
            )
            return outcome
    if exp.outcome == "possible":
        # evidence the ladder keeps at "possible" (words, shared messages): named first there,
        # and no higher, so a change that lets words prove a case fails here
        ranked = pool = diagnosis.ranked
        verdict = next((v for v in ranked if v.id == spec.case_id), None)
        outcome.verdict = verdict
        named = ", ".join(f"{v.id} ({v.level})" for v in ranked[:3]) or "no case"
        if verdict is None or ranked[0].id != spec.case_id:
            outcome.problems.append(
                f"expected {spec.case_id} to be named first at possible; named: {named}"
            )
            return outcome
        if verdict.level != "possible":
            outcome.problems.append(
                f"expected {spec.case_id} at possible (its evidence should not prove it), "
                f"got {verdict.level}: {verdict.stopped or 'no cap'}"
            )
    if exp.outcome == "no-match":
        if verdict is not None:
            lines = ", ".join(f"{q} at {ln.where}" for q, ln in verdict.evidence[:3])
            outcome.problems.append(
                f"expected no match, but {spec.case_id} matched (score {verdict.score:.2f}) "
                f"on {lines or 'no lines'}"
            )
        return outcome
    if verdict is None:
        others = ", ".join(v.id for v in diagnosis.matches) or "no case"
        outcome.problems.append(
            f"expected {spec.case_id} to match, but it did not (matched: {others})"
        )
        near = next((v for v in diagnosis.near_misses if v.id == spec.case_id), None)
        if near is not None:
            failed = [
                f"{c.role} {c.text} is {c.truth.value}"
                for c in near.clauses
                if (c.role == "require" and c.truth.value != "true")
                or (c.role == "rule_out" and c.truth.value == "true")
            ]
            outcome.problems.append("because " + "; ".join(failed))
        return outcome
    first = pool[0]
    if first.id != spec.case_id:
        outcome.problems.append(
            f"{spec.case_id} matched but ranks below {first.id} "
            f"({verdict.score:.2f} vs {first.score:.2f})"
        )
    if exp.culprit_rank is not None and verdict.culprit_rank != exp.culprit_rank:
        outcome.problems.append(
            f"expected culprit rank {exp.culprit_rank}, got {verdict.culprit_rank}"
        )
    for query, where in exp.lines:
        shown = [ln for q, ln in verdict.evidence if q == query]
        if not any(_where_matches(where, ln) for ln in shown):
            got = ", ".join(ln.where for ln in shown[:5]) or "none"
            outcome.problems.append(f"expected evidence `{query}` at {where}; shown: {got}")
    return outcome


def is_real_incident(folder: Path) -> bool:
    """A fixture taken from a public thread carries its provenance (see kb/incidents.py)."""
    return (folder / INCIDENT_FILE).is_file()


def fixture_evidence(case: m.Case, fixture: m.FixtureExpectation) -> dict[str, list[EvidenceLine]]:
    """Lines each query of `case` matched in one of its fixtures (for the site's excerpts)."""
    spec = next((s for s in fixtures_of(case) if s.path == fixture.path.strip("/")), None)
    if spec is None or not spec.folder.is_dir():
        return {}
    kb = knowledge_base_for(default_roots(Path(case.folder)))
    compiled = kb.get(case.id)
    if compiled is None:
        return {}
    from kb.match.diagnose import run_case

    bundle = read_bundle(kb, str(spec.folder), workers=1)
    verdict = run_case(compiled, bundle)
    # a line of the reporter's notes is their words (a quoted message at most): said so, so
    # the site never shows prose as a line a tool printed
    notes = {f.path for f in bundle.facts.files if f.kind == "notes"}
    return {
        r.name: [replace(x, source="notes") if x.file in notes else x for x in r.lines]
        for r in verdict.queries
        if r.truth.value == "true"
    }


def select(kb: KnowledgeBase, ids: Sequence[str] = ()) -> list[m.Case]:
    cases = [c.case for c in kb.cases]
    return [c for c in cases if not ids or c.id in ids]


def describe(outcome: FixtureOutcome) -> dict[str, Any]:
    return {
        "case": outcome.spec.case_id,
        "fixture": outcome.spec.path,
        "passed": outcome.passed,
        "problems": outcome.problems,
    }
