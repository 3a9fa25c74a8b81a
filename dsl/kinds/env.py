"""`env`: an environment variable, from env dumps and the lines tools print about them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

from dsl.diagnostics import Diagnostic
from dsl.fields import REGEX, TEXT, WORD, Field
from dsl.kinds.base import Code, Lowering, Phrase, Query, QueryKind, regex_phrase
from dsl.values import Regex

if TYPE_CHECKING:  # annotations only: a warm `kb diagnose` needs no syntax tree
    from dsl import syntax as s


class EnvQuery(Query):
    kind: Literal["env"] = "env"
    variable: str
    test: Literal["set", "unset", "equals", "matches"] = "set"
    value: str | None = None
    regex: Regex | None = None


FIELDS = (
    Field("variable", WORD, "The environment variable."),
    Field("is", WORD, "The test.", choices=("set", "unset")),
    Field("equals", TEXT, "The value it must have."),
    Field("matches", REGEX, "A regex its value must match."),
)


def lower(
    node: s.EvidenceNode, v: dict[str, Any], common: dict[str, Any], lowering: Lowering
) -> EnvQuery:
    test = v.get("is", "set")
    if "equals" in v:
        test = "equals"
    elif "matches" in v:
        test = "matches"
    return EnvQuery(
        variable=v["variable"], test=test, value=v.get("equals"), regex=v.get("matches"), **common
    )


def check(q: EnvQuery) -> Iterator[Diagnostic]:
    if q.test == "matches" and q.regex is None:
        yield Diagnostic.at(q.span, f"`{q.name}` needs `matches /regex/`", code="impossible-query")


def describe(q: EnvQuery) -> Phrase:
    var = ("The environment variable ", Code(q.variable))
    if q.test == "unset":
        return (*var, " is not set")
    if q.test == "equals":
        return (*var, " is set to ", Code(q.value or ""))
    if q.test == "matches" and q.regex is not None:
        return (*var, " has a value matching ", *regex_phrase(q.regex))
    return (*var, " is set")


KIND = QueryKind(
    name="env",
    model=EnvQuery,
    fields=FIELDS,
    required=("variable",),
    lower=lower,
    describe=describe,
    check=check,
    words="environment variable",
    reads="env dumps, accelerate env, NCCL 'set by environment'",
)
