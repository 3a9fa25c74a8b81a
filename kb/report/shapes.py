"""The shapes of a report: what a person is told, as plain data the renderers read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kb.evidence.facts import EvidenceLine
from kb.match.results import Verdict

LEVEL_WORDS = {
    "confirmed": "confirmed",
    "likely": "likely, not yet proven",
    "possible": "possible, weak signs only",
    "none": "not matching",
}


@dataclass
class Ask:
    """Evidence to collect: what, how, and for which candidates."""

    what: str
    commands: list[str] = field(default_factory=list)
    note: str | None = None
    cases: list[str] = field(default_factory=list)


@dataclass
class FixStep:
    remedy: str
    title: str
    why: str | None
    commands: list[str]
    verify: str | None
    verify_commands: list[str]
    tried: EvidenceLine | None = None  # the notes line saying it was already tried
    other_platform: bool = False  # every command is for the other accelerator stack


@dataclass
class Fix:
    title: str
    steps: list[FixStep]


@dataclass
class Shown:
    """One evidence line, once, with everything it showed."""

    line: EvidenceLine
    shows: list[str]


@dataclass
class Need:
    role: str
    words: str
    state: str  # true | false | unknown


@dataclass
class Candidate:
    verdict: Verdict
    culprit: int | None
    needs: list[Need]
    shown: list[Shown]
    against: list[str]
    confirm: list[Ask]  # would prove it
    rule_out: list[Ask]  # could only rule it out
    helps: list[Ask]  # would make it more or less likely
    ask_user: list[str]  # things only the user can say (queries over the notes)
    fixes: list[Fix]

    @property
    def level_words(self) -> str:
        return LEVEL_WORDS.get(self.verdict.level, self.verdict.level)


@dataclass
class Report:
    root: str
    state: str  # match | possible | none | empty (nothing read: no file, or all skipped)
    platform: str | None
    answer: str
    why: str
    candidates: list[Candidate]  # confirmed or likely, best first
    possible: list[Candidate]
    near: list[tuple[str, str]]  # (id, what is missing, in words)
    first_fix: Fix | None
    next_command: str
    next_why: str
    next_steps: list[Ask]
    suspicious: list[tuple[str, EvidenceLine]]
    progress: list[tuple[str, EvidenceLine]]
    read: list[str]
    distinctions: list[str]
    ranking: str | None = None  # why the first candidate ranks above the second, in words
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, why), when empty
    extra: dict[str, Any] = field(default_factory=dict)
    # no case reached a level: catalogued messages found (kb.match.unexplained.KnownMessage)
    known_messages: list[Any] = field(default_factory=list)
