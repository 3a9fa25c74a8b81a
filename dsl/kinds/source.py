"""`source`: what a static reading of the training scripts found (with `ast`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from dsl.fields import REGEX, WORD, Field
from dsl.kinds.base import Code, Lowering, Phrase, Query, QueryKind, regex_phrase
from dsl.values import Regex

if TYPE_CHECKING:  # annotations only: a warm `kb diagnose` needs no syntax tree
    from dsl import syntax as s

FINDINGS: dict[str, str] = {
    "collective-in-main-only-branch": (
        "The training script calls a collective inside a branch that only the main process "
        "runs (such as `if accelerator.is_main_process:`)"
    ),
    "save-in-main-only-branch": (
        "The training script saves a checkpoint inside a branch that only the main process "
        "runs, while the save itself needs every rank"
    ),
}


class SourceQuery(Query):
    """Findings from static reading of training scripts."""

    kind: Literal["source"] = "source"
    finding: Literal["collective-in-main-only-branch", "save-in-main-only-branch", "call"]
    call: Regex | None = None


FIELDS = (
    Field(
        "finding",
        WORD,
        "What static reading of the training script must find.",
        choices=(*FINDINGS, "call"),
    ),
    Field("call", REGEX, "The called function's name."),
)


def lower(
    node: s.EvidenceNode, v: dict[str, Any], common: dict[str, Any], lowering: Lowering
) -> SourceQuery:
    return SourceQuery(finding=v["finding"], call=v.get("call"), **common)


def describe(q: SourceQuery) -> Phrase:
    if q.finding == "call" and q.call is not None:
        return ("The training script calls a function matching ", *regex_phrase(q.call))
    if q.finding in FINDINGS:
        return (FINDINGS[q.finding],)
    return ("Static reading finds ", Code(q.finding))


KIND = QueryKind(
    name="source",
    model=SourceQuery,
    fields=FIELDS,
    required=("finding",),
    lower=lower,
    describe=describe,
    words="training script",
    reads="training scripts, read with ast",
)
