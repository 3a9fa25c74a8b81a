"""`package` queries: a version from the package lists, held to the query's specifier."""

from __future__ import annotations

from typing import TYPE_CHECKING

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from kb.evidence.facts import EvidenceLine
from kb.match.context import Context
from kb.match.results import QueryResult, Truth

if TYPE_CHECKING:  # a warm run evaluates the snapshot's records (kb.cache.records)
    from dsl.kinds.package import PackageQuery


def _version_ok(version: str, spec: str) -> bool | None:
    try:
        return Version(version) in SpecifierSet(spec, prereleases=True)
    except (InvalidVersion, InvalidSpecifier):
        return None


def evaluate(q: PackageQuery, ctx: Context) -> QueryResult:
    # a tool's package list beats versions the user named in words
    captures = [
        c for c in ctx.facts.package_captures if c.tool != "notes"
    ] or ctx.facts.package_captures
    if not captures:
        return QueryResult(
            name=q.name,
            kind=q.kind,
            truth=Truth.UNKNOWN,
            detail="no package list (pip freeze, pip list, conda list, "
            "collect_env, accelerate env) was handed over",
        )
    lines, seen = [], []
    for cap in captures:
        version = cap.packages.get(q.package)
        if version is None:
            continue
        seen.append(f"{version} ({cap.file})")
        ok = _version_ok(version, q.specifier) if q.specifier else True
        if ok:
            lines.append(
                EvidenceLine(
                    file=cap.file,
                    line=cap.lines.get(q.package, 0),
                    text=f"{q.package}=={version}",
                    source=cap.tool,
                )
            )
    if lines:
        return QueryResult(
            name=q.name,
            kind=q.kind,
            truth=Truth.TRUE,
            lines=lines,
            detail=f"{q.package} {', '.join(seen)} matches {q.specifier or 'any'}",
        )
    if not seen and all(c.tool == "notes" for c in captures):
        return QueryResult(
            name=q.name,
            kind=q.kind,
            truth=Truth.UNKNOWN,
            detail=f"the user's words name no {q.package} version, and no "
            "package list was handed over",
        )
    if not seen:
        return QueryResult(
            name=q.name,
            kind=q.kind,
            truth=Truth.FALSE,
            detail=f"{q.package} is not in the package lists",
        )
    return QueryResult(
        name=q.name,
        kind=q.kind,
        truth=Truth.FALSE,
        detail=f"{q.package} {', '.join(seen)} does not match {q.specifier}",
    )
