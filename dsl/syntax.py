"""The syntax tree: exactly what the author wrote, one class per grammar alias.

The formatter prints this tree back; `dsl.lower` turns it into the semantic model.
Values keep their decoded content (strings unescaped, text blocks dedented) so that
two spellings of the same case compare equal.
"""

from __future__ import annotations

from pydantic import Field

from dsl.span import Node


# ---------------------------------------------------------------- values
class StringValue(Node):
    value: str


class TextBlockValue(Node):
    value: str


class CodeBlockValue(Node):
    language: str
    code: str


class RegexValue(Node):
    pattern: str
    flags: str = ""


class NumberValue(Node):
    value: float
    raw: str

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NumberValue) and self.value == other.value

    def __hash__(self) -> int:
        return hash(self.value)


class DateValue(Node):
    value: str


class WordValue(Node):
    value: str


class ListValue(Node):
    items: list[Value]


Value = (
    StringValue
    | TextBlockValue
    | CodeBlockValue
    | RegexValue
    | NumberValue
    | DateValue
    | WordValue
    | ListValue
)


# ---------------------------------------------------------------- conditions
class RefExpr(Node):
    name: str


class NotExpr(Node):
    operand: Expr


class AndExpr(Node):
    operands: list[Expr]


class OrExpr(Node):
    operands: list[Expr]


class AtLeastExpr(Node):
    count: NumberValue
    operands: list[Expr]


Expr = RefExpr | NotExpr | AndExpr | OrExpr | AtLeastExpr


class ClauseNode(Node):
    role: str  # require | support | rule_out | likely | possible
    expr: Expr
    weight: NumberValue | None = None


class MatchNode(Node):
    clauses: list[ClauseNode]


# ---------------------------------------------------------------- statements
class AttributeNode(Node):
    name: str
    value: Value


class BlockNode(Node):
    name: str
    label: Value | None = None
    items: list[Item] = Field(default_factory=list)


class EvidenceNode(Node):
    name: str
    kind: str
    items: list[Item] = Field(default_factory=list)


Item = AttributeNode | BlockNode | EvidenceNode | MatchNode


class CaseNode(Node):
    id: str
    items: list[Item] = Field(default_factory=list)


class Comment(Node):
    """A `#` comment, kept so the formatter can put it back."""

    text: str


class CaseFile(Node):
    case: CaseNode
    comments: list[Comment] = Field(default_factory=list)


for _model in (
    ListValue,
    NotExpr,
    AndExpr,
    OrExpr,
    AtLeastExpr,
    ClauseNode,
    MatchNode,
    BlockNode,
    EvidenceNode,
    CaseNode,
    CaseFile,
):
    _model.model_rebuild()
