"""`stack`: a frame on the stacks dumped by py-spy, faulthandler or a traceback."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from dsl.fields import INT, REGEX, SCOPES, WORD, Field
from dsl.kinds.base import (
    Lowering,
    Phrase,
    Query,
    QueryKind,
    Scope,
    rank_problems,
    ranks_words,
    regex_phrase,
)
from dsl.values import Regex

if TYPE_CHECKING:  # annotations only: a warm `kb diagnose` needs no syntax tree
    from dsl import syntax as s


class StackQuery(Query):
    kind: Literal["stack"] = "stack"
    frame: Regex
    scope: Scope = Scope.ANY
    rank: int | None = None


FIELDS = (
    Field("frame", REGEX, "A frame (function or file) on the stack."),
    Field("scope", WORD, "Which ranks.", choices=SCOPES),
    Field("rank", INT, "With `scope rank`: the rank."),
)


def lower(
    node: s.EvidenceNode, v: dict[str, Any], common: dict[str, Any], lowering: Lowering
) -> StackQuery:
    return StackQuery(
        frame=v["frame"], scope=Scope(v.get("scope", "any")), rank=v.get("rank"), **common
    )


def describe(q: StackQuery) -> Phrase:
    return (
        "A stack frame matching ",
        *regex_phrase(q.frame),
        " in the stacks ",
        ranks_words(q.scope, q.rank),
    )


KIND = QueryKind(
    name="stack",
    model=StackQuery,
    fields=FIELDS,
    required=("frame",),
    lower=lower,
    describe=describe,
    check=rank_problems,
    words="stack trace",
)
