"""The model's enumerations (roles, levels, scopes, severities), in a module that imports
nothing: a warm `kb diagnose` loads the knowledge base as plain records
(`kb.cache.records`) and compares their values with these very members, without pydantic."""

from __future__ import annotations

from enum import Enum


class Scope(str, Enum):
    """Which ranks a log pattern or a stack frame has to be seen on."""

    ANY = "any"  # at least one rank (or a file without a rank)
    ALL = "all"  # every rank that left logs
    ONE = "one"  # exactly one rank: the failure is local to it
    RANK = "rank"  # the rank named in `Query.rank`
    ALL_BUT_ONE = "all-but-one"  # every rank that left logs but one: the silent one is blamed


class Role(str, Enum):
    REQUIRED = "require"  # must hold for the case to match
    SUPPORTING = "support"  # raises the score when it holds
    RULING_OUT = "rule_out"  # if it holds, the case does not match
    LIKELY = "likely"  # the signature without the proof: the case is likely
    POSSIBLE = "possible"  # weaker, indirect signs: the case is possible


class Level(str, Enum):
    """How sure a verdict is, strongest first. `confirmed`: every `require` holds;
    `likely`: every `likely` clause holds; `possible`: every `possible` clause holds. A
    `rule_out` that holds vetoes every level."""

    CONFIRMED = "confirmed"
    LIKELY = "likely"
    POSSIBLE = "possible"
    NONE = "none"

    @property
    def rank(self) -> int:
        return ("confirmed", "likely", "possible", "none").index(self.value)


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


# The query kinds whose model is a `LogQuery` (a pattern over lines: `message` and `said`
# resolve to one), for code that reads loaded records as well as models; a test keeps it
# equal to the registry (tests/kb/cache/test_records.py).
LOG_KINDS = frozenset({"log", "message", "said"})
