"""`topology` queries: the GPU pairs of `nvidia-smi topo -m` and their link types."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from kb.evidence.facts import EvidenceLine
from kb.match.context import Context
from kb.match.results import QueryResult, Truth

if TYPE_CHECKING:  # a warm run evaluates the snapshot's records (kb.cache.records)
    from dsl.kinds.topology import TopologyQuery


def _link_matches(link: str, wanted: list[str]) -> bool:
    for w in wanted:
        if w == link or (w in ("NV#", "NV") and link.startswith("NV") and link[2:].isdigit()):
            return True
    return False


def evaluate(q: TopologyQuery, ctx: Context) -> QueryResult:
    topo = ctx.facts.topology
    if topo is None or not topo.links:
        return QueryResult(
            name=q.name,
            kind=q.kind,
            truth=Truth.UNKNOWN,
            detail="no `nvidia-smi topo -m` output was handed over",
        )
    gpu_pairs = {
        k: v
        for k, v in topo.links.items()
        if all(p.startswith("GPU") for p in k.split(",")) and v != "X"
    }
    hits = {k: v for k, v in gpu_pairs.items() if _link_matches(v, q.links)}
    ok = bool(hits) if q.pairs == "any" else bool(gpu_pairs) and len(hits) == len(gpu_pairs)
    lines = []
    for pair in sorted(hits)[:6]:
        row = pair.split(",")[0]
        lines.append(
            EvidenceLine(
                file=topo.file,
                line=topo.lines.get(row, 0),
                text=f"{pair.replace(',', ' <-> ')}: {hits[pair]}",
                source="nvidia-topo",
            )
        )
    kinds = Counter(gpu_pairs.values())
    return QueryResult(
        name=q.name,
        kind=q.kind,
        truth=Truth.TRUE if ok else Truth.FALSE,
        lines=lines if ok else [],
        detail="GPU links: " + ", ".join(f"{k}×{n}" for k, n in sorted(kinds.items())),
    )
