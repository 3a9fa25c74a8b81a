"""`said`: what the user says in their own words, read through the shared vocabulary.

    evidence says_eval: said { words [phase.evaluation] }

The vocabulary (`catalogue/words/`) holds each idea's English and Chinese phrasings once;
a case names ideas. Only the user's notes are read (their prose, never tool output).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field as ModelField

from dsl.catalogue import registry
from dsl.diagnostics import did_you_mean
from dsl.fields import INT, WORDS, Field
from dsl.kinds import log
from dsl.kinds.base import Code, Lowering, Phrase, QueryKind, Scope
from dsl.values import Regex

if TYPE_CHECKING:  # annotations only: a warm `kb diagnose` needs no syntax tree
    from dsl import syntax as s

NOTES = ["notes"]


class SaidQuery(log.LogQuery):
    kind: Literal["said"] = "said"  # type: ignore[assignment]
    words: list[str] = ModelField(default_factory=list)


FIELDS = (
    Field("words", WORDS, "Vocabulary ids (catalogue/words/): [symptom.hang, phase.evaluation]."),
    Field("min_count", INT, "At least this many lines saying it (default 1)."),
)


def lower(
    node: s.EvidenceNode, v: dict[str, Any], common: dict[str, Any], lowering: Lowering
) -> SaidQuery | None:
    catalogue = registry.current()
    parts: list[str] = []
    for ident in v["words"]:
        words = catalogue.words.get(ident)
        if words is None:
            lowering.error(
                node.span,
                f"`{node.name}`: the vocabulary has no words `{ident}`",
                "unknown-words",
                help=did_you_mean(ident, catalogue.words) or "see catalogue/words/",
            )
            continue
        for regex in words.patterns():
            parts.append(f"(?i:{regex.pattern})" if regex.ignore_case else f"(?:{regex.pattern})")
    if not parts:
        return None
    return SaidQuery(
        pattern=Regex(pattern="|".join(dict.fromkeys(parts)), span=node.span),
        words=list(v["words"]),
        sources=list(NOTES),
        scope=Scope.ANY,
        min_count=v.get("min_count", 1),
        **common,
    )


def describe(q: SaidQuery) -> Phrase:
    ids: list[str | Code] = []
    for i, ident in enumerate(q.words):
        ids += [" or "] * bool(i) + [Code(ident)]
    return ("The user's own words say ", *ids)


KIND = QueryKind(
    name="said",
    model=SaidQuery,
    fields=FIELDS,
    required=("words",),
    lower=lower,
    describe=describe,
    words="user's words",
    reads="the user's notes",
)
