"""What a checker concludes: per-query results, per-case verdicts, the whole diagnosis."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from enum import Enum
from typing import Any

from kb.evidence.facts import EvidenceLine

# Plain dataclasses, as kb.evidence.facts: a warm `kb diagnose` makes a few hundred of them
# and must not import pydantic, whose import and class building took longer than the cases.


def dump(value: Any, mode: str = "python", by_alias: bool = False) -> Any:
    """As pydantic's `model_dump`: dataclasses become dicts (a field's `alias` metadata names
    its key when `by_alias`); in `json` mode enumerations become their values, tuples lists."""
    json = mode == "json"
    if is_dataclass(value) and not isinstance(value, type):
        return {
            (f.metadata.get("alias", f.name) if by_alias else f.name): dump(
                getattr(value, f.name), mode, by_alias
            )
            for f in fields(value)
        }
    if isinstance(value, Enum) and json:
        return value.value
    if isinstance(value, list):
        return [dump(v, mode, by_alias) for v in value]
    if isinstance(value, tuple):
        items = [dump(v, mode, by_alias) for v in value]
        return items if json else tuple(items)
    if isinstance(value, dict):
        return {k: dump(v, mode, by_alias) for k, v in value.items()}
    return value


class Result:
    """What every result here can do: be dumped as pydantic models were (`dump`)."""

    def model_dump(self, mode: str = "python", by_alias: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = dump(self, mode, by_alias)
        return out


class Truth(str, Enum):
    """Three-valued: a query whose evidence was not handed over is UNKNOWN, not FALSE."""

    TRUE = "true"
    FALSE = "false"
    UNKNOWN = "unknown"


@dataclass(kw_only=True)
class QueryResult(Result):
    name: str
    kind: str
    truth: Truth
    lines: list[EvidenceLine] = field(default_factory=list)
    detail: str = ""  # what was found, or why it is unknown
    ranks: list[int] = field(default_factory=list)  # ranks the evidence points at
    # catalogue entries the query found (a regression query: the known-bad releases hit)
    found: list[str] = field(default_factory=list)


@dataclass(kw_only=True)
class ClauseResult(Result):
    role: str
    text: str
    truth: Truth
    weight: float


@dataclass(kw_only=True)
class Missing(Result):
    """Evidence that was not handed over, and how to collect it."""

    query: str
    description: str
    commands: list[str] = field(default_factory=list)
    note: str | None = None
    cases: list[str] = field(default_factory=list)  # candidates whose verdict it would change
    only_against: bool = False  # the query can only rule its case out
    confirms: bool = False  # the query is part of the proof (a `require` clause)


@dataclass(kw_only=True)
class LadderFact(Result):
    """A query that holds and speaks for a case, and how much it proves (kb.match.ladder)."""

    query: str
    strength: str  # decisive | own | shared | words | context
    messages: list[str] = field(default_factory=list)  # catalogue ids its lines are
    siblings: list[str] = field(default_factory=list)  # other named causes of them
    roles: list[str] = field(default_factory=list)  # the clauses it appears in
    said: bool = False  # read from the user's words only (a case's own pattern over notes)
    # a status line (what a program reports of its setup) that the case's `where` made a
    # fact: it tells the case apart, but it does not show the failure itself
    status: bool = False


@dataclass(kw_only=True)
class Verdict(Result):
    id: str
    title: str
    matched: bool
    score: float
    confidence: str  # high | medium | low
    level: str = "none"  # confirmed | likely | possible | none (see dsl.model.Level)
    culprit_rank: int | None = None
    clauses: list[ClauseResult] = field(default_factory=list)
    queries: list[QueryResult] = field(default_factory=list)
    evidence: list[tuple[str, EvidenceLine]] = field(default_factory=list)  # (query, line)
    against: list[tuple[str, EvidenceLine]] = field(default_factory=list)
    against_reasons: list[str] = field(default_factory=list)
    missing: list[Missing] = field(default_factory=list)
    specializes: list[str] = field(default_factory=list)
    page: str = ""
    # the confidence ladder (kb.match.ladder): the level the clauses gave, the facts behind
    # it, why the verdict stopped below it, and the causes left standing beside it
    clause_level: str = "none"
    facts: list[LadderFact] = field(default_factory=list)
    stopped: str = ""
    rivals: list[str] = field(default_factory=list)


@dataclass(kw_only=True)
class Distinction(Result):
    """For two close cases: evidence that would tell them apart."""

    first: str
    second: str
    hints: list[Missing] = field(default_factory=list)
    explanation: str = ""
