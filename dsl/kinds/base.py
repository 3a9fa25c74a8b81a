"""What every query kind is made of, so that adding one is one module and one registry line.

A kind declares its fields (the language), its typed model, how its attribute values become
that model (lowering), what makes a lowered query impossible (validation) and one
description. The description is a `Phrase`: trusted words and untrusted values kept apart,
so the site escapes the values as code and the CLI prints them as they are, from the same
sentence. The evaluator is the runtime's part (`kb.match.kinds`), registered by kind name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import Field as ModelField

from dsl.choices import Scope as Scope
from dsl.diagnostics import Diagnostic
from dsl.fields import Field
from dsl.span import Node, Span
from dsl.values import CodeBlock, Regex, Text

if TYPE_CHECKING:  # annotations only: a warm `kb diagnose` needs no syntax tree
    from dsl import syntax as s


class Query(Node):
    """Base of every evidence query. `name` is how the match condition refers to it."""

    name: str
    kind: str
    description: Text | None = None
    collect: list[CodeBlock] = ModelField(default_factory=list)
    collect_note: Text | None = None


# ------------------------------------------------------------------ one description


@dataclass(frozen=True)
class Code:
    """A value from the case (a pattern, a name): shown as code, escaped by the renderer."""

    text: str


Phrase = tuple["str | Code", ...]  # words written here (trusted) and values from the case


def plain(phrase: Phrase) -> str:
    """The phrase for a terminal: values in backticks, as they are."""
    return "".join(p if isinstance(p, str) else f"`{p.text}`" for p in phrase)


def regex_phrase(value: Regex) -> Phrase:
    """A pattern as code, with its flags in words."""
    flags = []
    if value.ignore_case:
        flags.append("ignoring case")
    if "m" in value.flags:
        flags.append("multi-line")
    if "s" in value.flags:
        flags.append("`.` matching newlines")
    if "x" in value.flags:
        flags.append("verbose")
    tail = f" ({', '.join(flags)})" if flags else ""
    return (Code(value.pattern), tail) if tail else (Code(value.pattern),)


def joined(values: list[str], last: str = " or ", sep: str = " or ") -> Phrase:
    """`a`, `b` or `c` (sep between all but the last pair)."""
    out: list[str | Code] = []
    for i, v in enumerate(values):
        if i:
            out.append(last if i == len(values) - 1 else sep)
        out.append(Code(v))
    return tuple(out)


# ------------------------------------------------------------------ the kind itself


class Lowering(Protocol):
    """What a kind's lowering may use of the lowerer: the node, and a place for errors."""

    def error(self, span: Span, message: str, code: str, help: str | None = None) -> None: ...


LowerFn = Callable[["s.EvidenceNode", dict[str, Any], dict[str, Any], Lowering], "Query | None"]


def no_problems(q: Any) -> Iterator[Diagnostic]:
    return iter(())


@dataclass(frozen=True)
class QueryKind:
    """One kind of evidence query, everything the language knows of it."""

    name: str
    model: type[Query]
    fields: tuple[Field, ...]
    required: tuple[str, ...]
    lower: LowerFn  # (node, attribute values, common fields, lowerer) -> query or None
    describe: Callable[[Any], Phrase]  # the one sentence for the CLI, report and site
    words: str  # what the kind is about, for a table column: "installed package"
    reads: str = ""  # the evidence it reads, when the sentence does not say it
    check: Callable[[Any], Iterator[Diagnostic]] = no_problems  # impossible queries

    def explain(self, q: Query) -> str:
        """One line for `kb compile --show` and the report: the sentence and what it reads."""
        reads = f" ({self.reads})" if self.reads else ""
        return f"{self.name}: {plain(self.describe(q))}{reads}"


def rank_problems(q: Any) -> Iterator[Diagnostic]:
    """`scope rank` and `rank N` go together (log and stack queries)."""
    if q.scope is Scope.RANK and q.rank is None:
        yield Diagnostic.at(
            q.span, f"`{q.name}` has `scope rank` but no `rank N`", code="impossible-query"
        )
    if q.rank is not None and q.scope is not Scope.RANK:
        yield Diagnostic.at(
            q.span, f"`{q.name}` names a rank; add `scope rank`", code="impossible-query"
        )


SCOPE_WORDS: dict[Scope, str] = {
    Scope.ANY: "of any rank",
    Scope.ALL: "of every rank",
    Scope.ONE: "of exactly one rank",
    Scope.ALL_BUT_ONE: "of every rank but one (the silent rank is the culprit)",
}


def ranks_words(scope: Scope, rank: int | None) -> str:
    return f"of rank {rank}" if scope is Scope.RANK else SCOPE_WORDS[scope]
