"""`regression` queries: each installed version of a component, held to the known-bad ranges.

Versions come from the package lists (pip names of the component's wheels) and from the
versions the logs print (`NCCL version 2.19.3`, the CANN version); the user's words count
only when nothing else names a version.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from kb.evidence.facts import EvidenceLine
from kb.match.context import Context
from kb.match.results import QueryResult, Truth

if TYPE_CHECKING:  # a warm run evaluates the snapshot's records (kb.cache.records)
    from dsl.kinds.regression import KnownRegression, RegressionQuery


# The wheels that carry a component, as pip names them (canonical form).
WHEELS: dict[str, tuple[str, ...]] = {
    "nccl": ("nccl", "nvidia-nccl-cu12", "nvidia-nccl-cu11", "nvidia-nccl-cu13"),
    "torch": ("torch",),
    "torch-npu": ("torch-npu",),
    "torch_npu": ("torch-npu",),
}


def _versions(component: str, ctx: Context) -> list[tuple[str, EvidenceLine]]:
    """(version, where it was read) for every capture naming the component."""
    found: list[tuple[str, EvidenceLine]] = []
    facts = ctx.facts
    logged = {"nccl": facts.nccl_version, "cann": facts.cann_version}.get(component)
    if logged:
        printed = [ln for ln in facts.version_lines if logged in ln.text]
        where = (
            printed[0] if printed else EvidenceLine(file="", line=0, text=f"{component} {logged}")
        )
        found.append((logged, where))
    captures = [c for c in facts.package_captures if c.tool != "notes"]
    if not captures and not found:
        captures = list(facts.package_captures)
    for cap in captures:
        for wheel in WHEELS.get(component, (component.replace("_", "-"),)):
            version = cap.packages.get(wheel)
            if version:
                line = EvidenceLine(
                    file=cap.file,
                    line=cap.lines.get(wheel, 0),
                    text=f"{wheel}=={version}",
                    source=cap.tool,
                )
                found.append((version, line))
    return found


def _affected(version: str, regression: KnownRegression) -> bool:
    try:
        base = Version(version.split("+")[0])
        return base in SpecifierSet(regression.affected, prereleases=True)
    except (InvalidVersion, InvalidSpecifier):
        return False


def evaluate(q: RegressionQuery, ctx: Context) -> QueryResult:
    seen: list[str] = []
    lines: list[EvidenceLine] = []
    hits: list[str] = []
    found: list[str] = []
    for component in q.components:
        for version, where in _versions(component, ctx):
            seen.append(f"{component} {version}")
            for regression in q.regressions:
                if regression.component == component and _affected(version, regression):
                    fixed = f", fixed in {regression.fixed_in}" if regression.fixed_in else ""
                    hits.append(f"{component} {version}: {regression.id}{fixed}")
                    found.append(regression.id)
                    if where not in lines:
                        lines.append(where)
    if hits:
        return QueryResult(
            name=q.name,
            kind=q.kind,
            truth=Truth.TRUE,
            lines=lines,
            detail="; ".join(hits),
            found=list(dict.fromkeys(found)),
        )
    if not seen:
        return QueryResult(
            name=q.name,
            kind=q.kind,
            truth=Truth.UNKNOWN,
            detail=f"no version of {' or '.join(q.components)} was found in the evidence",
        )
    return QueryResult(
        name=q.name,
        kind=q.kind,
        truth=Truth.FALSE,
        detail=f"{', '.join(dict.fromkeys(seen))}: no known-bad release",
    )
