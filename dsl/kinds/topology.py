"""`topology`: how pairs of GPUs are linked, from `nvidia-smi topo -m`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from dsl.fields import WORD, WORDS, Field
from dsl.kinds.base import Lowering, Phrase, Query, QueryKind, joined

if TYPE_CHECKING:  # annotations only: a warm `kb diagnose` needs no syntax tree
    from dsl import syntax as s


class TopologyQuery(Query):
    kind: Literal["topology"] = "topology"
    links: list[str]  # nvidia-smi topo link types: NV#, PIX, PXB, PHB, NODE, SYS
    pairs: Literal["any", "all"] = "any"


FIELDS = (
    Field("links", WORDS, "Link types between GPUs: [PIX, PXB, PHB, NODE, SYS, NV#]."),
    Field("pairs", WORD, "Any pair or all pairs.", choices=("any", "all")),
)


def lower(
    node: s.EvidenceNode, v: dict[str, Any], common: dict[str, Any], lowering: Lowering
) -> TopologyQuery:
    return TopologyQuery(links=v["links"], pairs=v.get("pairs", "any"), **common)


def describe(q: TopologyQuery) -> Phrase:
    which = "Every pair" if q.pairs == "all" else "Some pair"
    return (f"{which} of GPUs is connected through ", *joined(q.links), " (`nvidia-smi topo -m`)")


KIND = QueryKind(
    name="topology",
    model=TopologyQuery,
    fields=FIELDS,
    required=("links",),
    lower=lower,
    describe=describe,
    words="GPU topology",
)
