"""Source positions shared by the syntax tree, the model and the diagnostics."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Span(BaseModel):
    """Where a node came from: 1-based line and column of its first and last character."""

    model_config = ConfigDict(frozen=True)

    path: str = ""
    line: int = 0
    column: int = 0
    end_line: int = 0
    end_column: int = 0


POSITIONS = frozenset({"span", "item_spans"})  # where a node came from, never what it says


class Node(BaseModel):
    """Base of every tree node. Spans never take part in equality."""

    model_config = ConfigDict(frozen=True)

    span: Span = Field(default_factory=Span, repr=False)

    def __eq__(self, other: object) -> bool:
        if type(self) is not type(other):
            return NotImplemented
        fields = (name for name in type(self).model_fields if name not in POSITIONS)
        return all(getattr(self, name) == getattr(other, name) for name in fields)

    def __hash__(self) -> int:
        return hash(type(self).__name__)
