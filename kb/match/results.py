"""What a checker concludes: per-query results, per-case verdicts, the whole diagnosis."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, Field

from kb.evidence.facts import EvidenceLine


class Truth(str, Enum):
    """Three-valued: a query whose evidence was not handed over is UNKNOWN, not FALSE."""

    TRUE = "true"
    FALSE = "false"
    UNKNOWN = "unknown"


class QueryResult(BaseModel):
    name: str
    kind: str
    truth: Truth
    lines: list[EvidenceLine] = Field(default_factory=list)
    detail: str = ""  # what was found, or why it is unknown
    ranks: list[int] = Field(default_factory=list)  # ranks the evidence points at
    # catalogue entries the query found (a regression query: the known-bad releases hit)
    found: list[str] = Field(default_factory=list)


class ClauseResult(BaseModel):
    role: str
    text: str
    truth: Truth
    weight: float


class Missing(BaseModel):
    """Evidence that was not handed over, and how to collect it."""

    query: str
    description: str
    commands: list[str] = Field(default_factory=list)
    note: str | None = None
    cases: list[str] = Field(default_factory=list)  # candidates whose verdict it would change
    only_against: bool = False  # the query can only rule its case out
    confirms: bool = False  # the query is part of the proof (a `require` clause)


class LadderFact(BaseModel):
    """A query that holds and speaks for a case, and how much it proves (kb.match.ladder)."""

    query: str
    strength: str  # decisive | own | shared | words | context
    messages: list[str] = Field(default_factory=list)  # catalogue ids its lines are
    siblings: list[str] = Field(default_factory=list)  # other named causes of them
    roles: list[str] = Field(default_factory=list)  # the clauses it appears in
    said: bool = False  # read from the user's words only (a case's own pattern over notes)
    # a status line (what a program reports of its setup) that the case's `where` made a
    # fact: it tells the case apart, but it does not show the failure itself
    status: bool = False


class Verdict(BaseModel):
    id: str
    title: str
    matched: bool
    score: float
    confidence: str  # high | medium | low
    level: str = "none"  # confirmed | likely | possible | none (see dsl.model.Level)
    culprit_rank: int | None = None
    clauses: list[ClauseResult] = Field(default_factory=list)
    queries: list[QueryResult] = Field(default_factory=list)
    evidence: list[tuple[str, EvidenceLine]] = Field(default_factory=list)  # (query, line)
    against: list[tuple[str, EvidenceLine]] = Field(default_factory=list)
    against_reasons: list[str] = Field(default_factory=list)
    missing: list[Missing] = Field(default_factory=list)
    specializes: list[str] = Field(default_factory=list)
    page: str = ""
    # the confidence ladder (kb.match.ladder): the level the clauses gave, the facts behind
    # it, why the verdict stopped below it, and the causes left standing beside it
    clause_level: str = "none"
    facts: list[LadderFact] = Field(default_factory=list)
    stopped: str = ""
    rivals: list[str] = Field(default_factory=list)


class Distinction(BaseModel):
    """For two close cases: evidence that would tell them apart."""

    first: str
    second: str
    hints: list[Missing] = Field(default_factory=list)
    explanation: str = ""
