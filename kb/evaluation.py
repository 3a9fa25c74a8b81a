"""How well the knowledge base names the cause of real incidents (`kb eval`).

Each real incident is diagnosed with the whole knowledge base, exactly as a user's folder
would be. Measured: how often the case the thread established comes first (top-1) and among
the first three (top-3), at any level and at "likely" or better; for near misses, the level
the case they resemble reached (it must stay below "likely"); and for failures no case covers,
whether the tool stayed silent.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dsl import model as m
from dsl.compiler import KnowledgeBase
from kb.fixtures import FixtureSpec
from kb.incidents import INCIDENT_FILE, FirstSeen, Incident, IncidentProblem, collect, read_meta
from kb.match.diagnose import diagnose_bundle, read_bundle

LEVELS = ("confirmed", "likely", "possible", "none")
STRONG = ("confirmed", "likely")


@dataclass
class IncidentResult:
    incident: Incident
    ranked: list[tuple[str, str, float]]  # (case id, level, score), best first
    expected: str | None
    near_miss_of: str | None

    @property
    def first(self) -> str | None:
        return self.ranked[0][0] if self.ranked else None

    def position(self, case_id: str | None) -> int | None:
        """1-based place of a case among the candidates, or None when not named."""
        ids = [c for c, _, _ in self.ranked]
        return ids.index(case_id) + 1 if case_id in ids else None

    def level_of(self, case_id: str | None) -> str:
        return next((lv for c, lv, _ in self.ranked if c == case_id), "none")

    @property
    def top1(self) -> bool:
        return self.expected is not None and self.first == self.expected

    @property
    def top1_strong(self) -> bool:
        return self.top1 and self.level_of(self.expected) in STRONG

    @property
    def top3(self) -> bool:
        pos = self.position(self.expected)
        return pos is not None and pos <= 3

    @property
    def silent(self) -> bool:
        """Nothing named at "likely" or better: the right answer for an uncovered failure."""
        return not any(lv in STRONG for _, lv, _ in self.ranked)


@dataclass
class Evaluation:
    results: list[IncidentResult] = field(default_factory=list)
    problems: list[IncidentProblem] = field(default_factory=list)

    @property
    def covered(self) -> list[IncidentResult]:
        return [r for r in self.results if r.expected is not None]

    @property
    def near_misses(self) -> list[IncidentResult]:
        return [r for r in self.results if r.near_miss_of is not None]

    @property
    def uncovered(self) -> list[IncidentResult]:
        return [r for r in self.results if r.expected is None]

    def rate(self, name: str) -> float:
        pool = self.covered
        return sum(getattr(r, name) for r in pool) / len(pool) if pool else 0.0

    def near_miss_levels(self) -> dict[str, int]:
        """How many near misses the case they resemble reached at each level."""
        counts = Counter(r.level_of(r.near_miss_of) for r in self.near_misses)
        return {lv: counts.get(lv, 0) for lv in LEVELS}

    def near_miss_rate(self, levels: tuple[str, ...]) -> float:
        pool = self.near_misses
        hits = sum(r.level_of(r.near_miss_of) in levels for r in pool)
        return hits / len(pool) if pool else 0.0

    def per_case(self) -> dict[str, dict[str, int]]:
        table: dict[str, dict[str, int]] = defaultdict(
            lambda: {
                "incidents": 0,
                "first": 0,
                "first_likely": 0,
                "top3": 0,
                "near_misses": 0,
                "near_misses_likely": 0,
            }
        )
        for r in self.covered:
            row = table[r.expected or ""]
            row["incidents"] += 1
            row["first"] += r.top1
            row["first_likely"] += r.top1_strong
            row["top3"] += r.top3
        for r in self.near_misses:
            row = table[r.near_miss_of or ""]
            row["near_misses"] += 1
            row["near_misses_likely"] += r.level_of(r.near_miss_of) in STRONG
        return dict(sorted(table.items()))

    def confusion(self) -> dict[str, dict[str, int]]:
        """Expected case (or `none`) → what came first (or `nothing`), counted."""
        table: dict[str, Counter[str]] = defaultdict(Counter)
        for r in self.results:
            strong_first = next((c for c, lv, _ in r.ranked if lv in STRONG), None)
            named = r.first if r.expected is not None else strong_first
            table[r.expected or "none"][named or "nothing"] += 1
        return {k: dict(v) for k, v in sorted(table.items())}

    def threads(self) -> int:
        return len({r.incident.meta.source.split("#")[0].rstrip("/") for r in self.results})

    def confirmed_wrong(self) -> int:
        """Answers at "confirmed" that named the wrong case (or any case for an uncovered kind)."""
        return sum(
            1
            for r in self.results
            if r.ranked and r.ranked[0][1] == "confirmed" and r.first != r.expected
        )

    def calibration(self) -> dict[str, dict[str, Any]]:
        """Per level of the first answer: how many answers, how many wrong (another case
        than the incident's, or any case for an incident no case covers), and which cases
        gave the wrong ones. What a level is worth, measured."""
        out: dict[str, dict[str, Any]] = {
            lv: {"answers": 0, "wrong": 0, "wrong_by_case": Counter()} for lv in LEVELS[:-1]
        }
        for r in self.results:
            if not r.ranked:
                continue
            case_id, level, _ = r.ranked[0]
            if level not in out:
                continue
            out[level]["answers"] += 1
            if case_id != r.expected:
                out[level]["wrong"] += 1
                out[level]["wrong_by_case"][case_id] += 1
        for row in out.values():
            row["wrong_by_case"] = dict(row["wrong_by_case"].most_common())
        return out

    def first_seen(self) -> Evaluation:
        """The same incidents as the tool first saw them: each one's recorded first diagnosis.
        Incidents without one (`unknown`, or none) are left out (their number is in
        `figures()["first_seen_unknown"]`; how many were back-filled rather than recorded live
        is in `figures()["first_seen_backfilled"]`)."""
        out = Evaluation()
        for r in self.results:
            seen = r.incident.meta.first_seen
            if isinstance(seen, FirstSeen):
                ranked = [(case, level, 0.0) for case, level in seen.ranked]
                out.results.append(IncidentResult(r.incident, ranked, r.expected, r.near_miss_of))
        return out

    def figures(self, with_first_seen: bool = True) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if with_first_seen:
            seen = self.first_seen()
            extra = {
                "first_seen": seen.figures(with_first_seen=False),
                "first_seen_unknown": len(self.results) - len(seen.results),
                "first_seen_backfilled": sum(
                    isinstance(r.incident.meta.first_seen, FirstSeen)
                    and r.incident.meta.first_seen.backfilled
                    for r in seen.results
                ),
            }
        return {
            "incidents": len(self.results),
            "threads": self.threads(),
            "covered": len(self.covered),
            "uncovered": len(self.uncovered),
            "near_misses": len(self.near_misses),
            "top1": round(self.rate("top1"), 4),
            "top1_likely_or_better": round(self.rate("top1_strong"), 4),
            "top3": round(self.rate("top3"), 4),
            "near_miss_likely_or_better": round(self.near_miss_rate(STRONG), 4),
            "near_miss_confirmed": round(self.near_miss_rate(("confirmed",)), 4),
            "near_miss_levels": self.near_miss_levels(),
            "uncovered_silent": sum(r.silent for r in self.uncovered),
            "confirmed_wrong": self.confirmed_wrong(),
            **extra,
        }


def held_out(root: Path) -> tuple[list[Incident], list[IncidentProblem]]:
    """Real incidents kept apart from the cases (`heldout/…/<set>/<name>/incident.yaml`):
    measured as they are, never fixtures a case was fitted to."""
    incidents: list[Incident] = []
    problems: list[IncidentProblem] = []
    for y in sorted(root.rglob(INCIDENT_FILE)):
        meta = read_meta(y.parent)
        if isinstance(meta, str):
            problems.append(IncidentProblem(str(y), meta))
            continue
        if meta is None:
            continue
        name = y.parent.relative_to(root).as_posix()
        outcome = "match" if meta.expected else "no-match"
        spec = FixtureSpec(
            case_id=meta.expected or meta.near_miss_of or "none",
            path=name,
            folder=y.parent,
            expectation=m.FixtureExpectation(path=name, outcome=outcome),
        )
        incidents.append(Incident(spec, meta))
    return incidents, problems


def evaluate(
    kb: KnowledgeBase, only: list[str] | None = None, incidents_root: Path | None = None
) -> Evaluation:
    cases = [c.case for c in kb.cases]
    incidents, problems = held_out(incidents_root) if incidents_root else collect(cases)
    if only:
        incidents = [i for i in incidents if i.fixture.case_id in only]
    out = Evaluation(problems=problems)
    for incident in incidents:
        diagnosis = diagnose_bundle(kb, read_bundle(kb, str(incident.fixture.folder), workers=1))
        ranked = [(v.id, v.level, v.score) for v in diagnosis.ranked]
        out.results.append(
            IncidentResult(
                incident=incident,
                ranked=ranked,
                expected=incident.meta.expected,
                near_miss_of=incident.meta.near_miss_of
                if incident.meta.near_miss_of not in (None, "none")
                else None,
            )
        )
    return out
