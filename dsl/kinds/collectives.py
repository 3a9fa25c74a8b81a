"""`collectives`: the collective calls of every rank, compared across ranks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from dsl.fields import INT, REGEX, WORD, Field
from dsl.kinds.base import Code, Lowering, Phrase, Query, QueryKind, regex_phrase
from dsl.values import Regex

if TYPE_CHECKING:  # annotations only: a warm `kb diagnose` needs no syntax tree
    from dsl import syntax as s

# what each check compares, in words (the site's sentence and the CLI's)
CHECKS: dict[str, str] = {
    "last-op-differs": "The last collective each rank logged is not the same on every rank",
    "count-differs": "The ranks logged different numbers of collectives",
    "count-equal": "Every rank logged the same number of collectives",
    "mismatch-reported": "The framework itself reported a collective mismatch between ranks",
    "seq-differs": "The order of collectives differs between ranks",
}


class CollectivesQuery(Query):
    """Cross-rank comparison of collective sequences (NCCL, HCCL entry logs, DETAIL mode)."""

    kind: Literal["collectives"] = "collectives"
    check: Literal[
        "last-op-differs", "count-differs", "count-equal", "mismatch-reported", "seq-differs"
    ]
    op: Regex | None = None  # restrict to ops whose name matches
    min_ranks: int = 2


FIELDS = (
    Field("check", WORD, "What to compare across ranks.", choices=tuple(CHECKS)),
    Field("op", REGEX, "Only ops whose name matches."),
    Field("min_ranks", INT, "At least this many ranks must have logged collectives."),
)


def lower(
    node: s.EvidenceNode, v: dict[str, Any], common: dict[str, Any], lowering: Lowering
) -> CollectivesQuery:
    return CollectivesQuery(
        check=v["check"], op=v.get("op"), min_ranks=v.get("min_ranks", 2), **common
    )


def describe(q: CollectivesQuery) -> Phrase:
    text: Phrase = (
        (CHECKS[q.check],) if q.check in CHECKS else ("Collectives check ", Code(q.check))
    )
    if q.op is not None:
        text += (", counting only operations matching ", *regex_phrase(q.op))
    if q.min_ranks > 2:
        text += (f", across at least {q.min_ranks} ranks",)
    return text


KIND = QueryKind(
    name="collectives",
    model=CollectivesQuery,
    fields=FIELDS,
    required=("check",),
    lower=lower,
    describe=describe,
    words="collectives across ranks",
    reads="HCCL entry logs, DETAIL fingerprints, watchdog",
)
