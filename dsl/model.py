"""The semantic model of a case: what a case *means*, after parsing and lowering.

The syntax tree (`dsl.syntax`) mirrors what the author typed; this model is what the
checkers, the site and the lint rules consume. Every node keeps the `Span` of the text
it came from so that later stages can still point at the right line.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, SerializeAsAny

from dsl.choices import Level as Level
from dsl.choices import Role as Role
from dsl.kinds import KINDS
from dsl.kinds.base import Query as Query
from dsl.kinds.base import Scope as Scope
from dsl.kinds.collectives import CollectivesQuery as CollectivesQuery
from dsl.kinds.env import EnvQuery as EnvQuery
from dsl.kinds.hardware import HardwareQuery as HardwareQuery
from dsl.kinds.log import LogQuery as LogQuery
from dsl.kinds.message import MessageQuery as MessageQuery
from dsl.kinds.package import PackageQuery as PackageQuery
from dsl.kinds.regression import RegressionQuery as RegressionQuery
from dsl.kinds.said import SaidQuery as SaidQuery
from dsl.kinds.source import SourceQuery as SourceQuery
from dsl.kinds.stack import StackQuery as StackQuery
from dsl.kinds.topology import TopologyQuery as TopologyQuery
from dsl.span import Node, Span
from dsl.values import CodeBlock as CodeBlock
from dsl.values import Regex as Regex
from dsl.values import Text as Text

# --------------------------------------------------------------------------- evidence queries
# One module per kind under dsl/kinds/ (registry: dsl/kinds/__init__.py); the models are
# re-exported here, with the rest of the model.


def _typed_queries(value: Any) -> Any:
    """Queries read back (from the compile cache) become the model of their registered kind."""
    if not isinstance(value, list):
        return value
    out = []
    for item in value:
        if isinstance(item, dict):
            kind = KINDS.get(str(item.get("kind")))
            if kind is None:
                raise ValueError(f"unknown query kind {item.get('kind')!r}")
            item = kind.model.model_validate(item)
        out.append(item)
    return out


Queries = Annotated[list[SerializeAsAny[Query]], BeforeValidator(_typed_queries)]


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
    # each alternative's `label.zh` (None: none written), in the order of `alternatives`
    alternative_labels_zh: list[str | None] = Field(default_factory=list)
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
    # possible: named first, but only at "possible" (the user's words or shared messages carry
    # it, which the confidence ladder keeps below likely)
    outcome: Literal["match", "possible", "no-match"]
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
    queries: Queries = Field(default_factory=list)
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
