"""The semantic model of a case: what a case *means*, after parsing and lowering.

The syntax tree (`dsl.syntax`) mirrors what the author typed; this model is what the
checkers, the site and the lint rules consume. Every node keeps the `Span` of the text
it came from so that later stages can still point at the right line.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Annotated, Literal

from pydantic import Field

from dsl.span import Node, Span


class Text(Node):
    """Prose in English with an optional Chinese translation."""

    en: str
    zh: str | None = None


class Regex(Node):
    """A pattern as written between slashes; flags are the letters after the closing slash."""

    pattern: str
    flags: str = ""

    @property
    def ignore_case(self) -> bool:
        return "i" in self.flags


class CodeBlock(Node):
    """A command or code snippet shown to the user (never executed by the tool)."""

    language: str = "bash"
    code: str


# --------------------------------------------------------------------------- evidence queries


class Scope(str, Enum):
    """Which ranks a log pattern has to be seen on."""

    ANY = "any"  # at least one rank (or a file without a rank)
    ALL = "all"  # every rank that left logs
    ONE = "one"  # exactly one rank: the failure is local to it
    RANK = "rank"  # the rank named in `Query.rank`
    ALL_BUT_ONE = "all-but-one"  # every rank that left logs but one: the silent one is blamed


class Query(Node):
    """Base of every evidence query. `name` is how the match condition refers to it."""

    name: str
    kind: str
    description: Text | None = None
    collect: list[CodeBlock] = Field(default_factory=list)
    collect_note: Text | None = None


class LogQuery(Query):
    kind: Literal["log"] = "log"
    pattern: Regex
    files: list[str] = Field(default_factory=list)  # globs; empty = every text file
    sources: list[str] = Field(default_factory=list)  # evidence source names, e.g. "nccl"
    scope: Scope = Scope.ANY
    rank: int | None = None
    min_count: int = 1
    max_count: int | None = None


class PackageQuery(Query):
    kind: Literal["package"] = "package"
    package: str  # normalized distribution name
    specifier: str  # PEP 440 specifier set, "" = installed at any version


class EnvQuery(Query):
    kind: Literal["env"] = "env"
    variable: str
    test: Literal["set", "unset", "equals", "matches"] = "set"
    value: str | None = None
    regex: Regex | None = None


class HardwareQuery(Query):
    kind: Literal["hardware"] = "hardware"
    device: Literal["gpu", "npu", "any"] = "any"
    model: Regex | None = None
    min_devices: int | None = None
    max_devices: int | None = None


class TopologyQuery(Query):
    kind: Literal["topology"] = "topology"
    links: list[str]  # nvidia-smi topo link types: NV#, PIX, PXB, PHB, NODE, SYS
    pairs: Literal["any", "all"] = "any"


class CollectivesQuery(Query):
    """Cross-rank comparison of collective sequences (NCCL, HCCL entry logs, DETAIL mode)."""

    kind: Literal["collectives"] = "collectives"
    check: Literal[
        "last-op-differs", "count-differs", "count-equal", "mismatch-reported", "seq-differs"
    ]
    op: Regex | None = None  # restrict to ops whose name matches
    min_ranks: int = 2


class StackQuery(Query):
    kind: Literal["stack"] = "stack"
    frame: Regex
    scope: Scope = Scope.ANY
    rank: int | None = None


class SourceQuery(Query):
    """Findings from static reading of training scripts."""

    kind: Literal["source"] = "source"
    finding: Literal["collective-in-main-only-branch", "save-in-main-only-branch", "call"]
    call: Regex | None = None


AnyQuery = Annotated[
    LogQuery
    | PackageQuery
    | EnvQuery
    | HardwareQuery
    | TopologyQuery
    | CollectivesQuery
    | StackQuery
    | SourceQuery,
    Field(discriminator="kind"),
]

QUERY_KINDS: dict[str, type[Query]] = {
    "log": LogQuery,
    "package": PackageQuery,
    "env": EnvQuery,
    "hardware": HardwareQuery,
    "topology": TopologyQuery,
    "collectives": CollectivesQuery,
    "stack": StackQuery,
    "source": SourceQuery,
}


# --------------------------------------------------------------------------- conditions


class Ref(Node):
    op: Literal["ref"] = "ref"
    name: str


class Not(Node):
    op: Literal["not"] = "not"
    operand: Expr


class And(Node):
    op: Literal["and"] = "and"
    operands: list[Expr]


class Or(Node):
    op: Literal["or"] = "or"
    operands: list[Expr]


class AtLeast(Node):
    op: Literal["at_least"] = "at_least"
    count: int
    operands: list[Expr]


Expr = Annotated[Ref | Not | And | Or | AtLeast, Field(discriminator="op")]


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


class Clause(Node):
    role: Role
    expr: Expr
    weight: float = 1.0


class Condition(Node):
    clauses: list[Clause]


# --------------------------------------------------------------------------- remedies, symptoms


class Step(Node):
    title: Text
    why: Text | None = None
    commands: list[CodeBlock] = Field(default_factory=list)
    alternatives: list[tuple[str, CodeBlock]] = Field(default_factory=list)  # (label, code)
    verify: Text | None = None
    verify_commands: list[CodeBlock] = Field(default_factory=list)


class Remedy(Node):
    title: Text
    steps: list[Step]


class Symptom(Node):
    text: Text
    evidence: list[str] = Field(default_factory=list)  # query names that show it


# --------------------------------------------------------------------------- fixtures


# A fixture is one folder directly under the case's fixtures/positive or fixtures/negative:
# never an absolute path, `..`, or a nested path (a case pack comes from strangers, and its
# fixtures are read by `kb test` and published by the site build)
FIXTURE_PATH = re.compile(r"(positive|negative)/(?!\.\.?$)[A-Za-z0-9._-]{1,200}")


def safe_fixture_path(path: str) -> bool:
    """
    >>> [safe_fixture_path(p) for p in ("positive/a-b.c", "negative/../../x", "/etc", "positive/a/b")]
    [True, False, False, False]
    """
    return FIXTURE_PATH.fullmatch(path) is not None


class FixtureExpectation(Node):
    """What one fixture folder must yield for this case."""

    path: str  # relative to the case folder's fixtures/, e.g. "positive/two-ranks"
    outcome: Literal["match", "no-match"]
    culprit_rank: int | None = None
    lines: list[tuple[str, str]] = Field(default_factory=list)  # (query name, "file:line")
    todo: str | None = None  # a known gap: recorded, reported, never failing


# --------------------------------------------------------------------------- the case


class Provenance(Node):
    source: str | None = None
    date: str | None = None
    verified_on: Text | None = None
    authors: list[str] = Field(default_factory=list)


class Case(Node):
    id: str
    title: Text
    summary: Text
    severity: Literal["critical", "high", "medium", "low"] = "medium"
    tags: list[str] = Field(default_factory=list)
    components: list[str] = Field(default_factory=list)
    platforms: list[str] = Field(default_factory=list)
    hardware: list[str] = Field(default_factory=list)
    affected: list[str] = Field(default_factory=list)  # requirement strings, "accelerate>=1.0"
    fixed: list[str] = Field(default_factory=list)
    references: list[str] = Field(default_factory=list)
    provenance: Provenance | None = None
    specializes: list[str] = Field(default_factory=list)  # ids of more general cases
    related: list[str] = Field(default_factory=list)
    cause: Text | None = None
    symptoms: list[Symptom] = Field(default_factory=list)
    queries: list[AnyQuery] = Field(default_factory=list)
    condition: Condition
    remedies: list[Remedy] = Field(default_factory=list)
    fixtures: list[FixtureExpectation] = Field(default_factory=list)
    folder: str = ""  # the case folder on disk
    # evidence queries that failed to lower: defined for name checks, so one bad query
    # does not also report every place that names it
    broken_queries: list[str] = Field(default_factory=list)
    # where each item of a list field (tags, affected, …) was written, for located errors
    item_spans: dict[str, list[Span]] = Field(default_factory=dict, repr=False)

    def item_span(self, field_name: str, index: int) -> Span:
        """Where item `index` of list field `field_name` was written (the case if unknown)."""
        spans = self.item_spans.get(field_name, [])
        return spans[index] if index < len(spans) else self.span

    def fixture_span(self, path: str) -> Span:
        """Where fixture `path` is declared (the case when it is only a folder on disk)."""
        declared = (f for f in self.fixtures if f.path.strip("/") == path.strip("/"))
        return next((f.span for f in declared), self.span)

    def query(self, name: str) -> Query | None:
        return next((q for q in self.queries if q.name == name), None)
