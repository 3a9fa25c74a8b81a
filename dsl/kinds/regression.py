"""`regression`: an installed release that the catalogue knows to be broken.

    evidence bad_release: regression { component [nccl] }

The releases and what each breaks are data (`catalogue/regressions/`), taken from the
components' release notes; lowering copies the entries for the named components into the
query, so a compiled case carries them and a new regression recompiles the cases that read it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel
from pydantic import Field as ModelField

from dsl.catalogue import registry
from dsl.fields import WORDS, Field
from dsl.kinds.base import Code, Lowering, Phrase, Query, QueryKind

if TYPE_CHECKING:  # annotations only: a warm `kb diagnose` needs no syntax tree
    from dsl import syntax as s


class KnownRegression(BaseModel):
    id: str
    component: str
    affected: str
    fixed_in: str | None = None
    means: str = ""
    source: str = ""
    signature: list[str] = ModelField(default_factory=list)


class RegressionQuery(Query):
    kind: Literal["regression"] = "regression"
    components: list[str]
    regressions: list[KnownRegression] = ModelField(default_factory=list)


FIELDS = (
    Field(
        "component",
        WORDS,
        "Components whose known-bad releases to look for: [nccl], [torch, accelerate].",
    ),
)


def lower(
    node: s.EvidenceNode, v: dict[str, Any], common: dict[str, Any], lowering: Lowering
) -> RegressionQuery | None:
    catalogue = registry.current()
    components = [c.lower() for c in v["component"]]
    known = {r.component.lower() for r in catalogue.regressions.values()}
    for component in components:
        if component not in known:
            lowering.error(
                node.span,
                f"`{node.name}`: the catalogue has no regression of `{component}`",
                "unknown-component",
                help=f"components with regressions: {', '.join(sorted(known)) or 'none'}",
            )
    chosen = [
        KnownRegression(
            id=r.id,
            component=r.component.lower(),
            affected=r.affected,
            fixed_in=r.fixed_in,
            means=r.means.en,
            source=r.source,
            signature=list(r.signature),
        )
        for r in catalogue.regressions.values()
        if r.component.lower() in components
    ]
    if not chosen:
        return None
    return RegressionQuery(components=components, regressions=chosen, **common)


def describe(q: RegressionQuery) -> Phrase:
    out: list[str | Code] = []
    for i, c in enumerate(q.components):
        out += [" or "] * bool(i) + [Code(c)]
    return (*out, f" installed at a release known to be broken ({len(q.regressions)} known)")


KIND = QueryKind(
    name="regression",
    model=RegressionQuery,
    fields=FIELDS,
    required=("component",),
    lower=lower,
    describe=describe,
    words="known-bad release",
    reads="package lists and the versions the logs print",
)
