"""`hardware` queries: the devices a tool listed, or else the ones the user named."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kb.evidence.facts import EvidenceLine, Facts
from kb.match.context import Context
from kb.match.regex import search
from kb.match.results import QueryResult, Truth

if TYPE_CHECKING:  # a warm run evaluates the snapshot's records (kb.cache.records)
    from dsl.kinds.hardware import HardwareQuery


def _devices(facts: Facts) -> list[Any]:
    """Devices a tool listed; only when none did, the ones the user named."""
    listed = [d for d in facts.devices if not d.reported]
    said = [d for d in facts.devices if d.reported]
    # `accelerate env` names the GPU type once; "8x RTX 3090" in the user's words says how many
    if listed and len(said) > len(listed) and {d.model for d in listed} <= {d.model for d in said}:
        return said
    return listed or said


def evaluate(q: HardwareQuery, ctx: Context) -> QueryResult:
    known = _devices(ctx.facts)
    devices = [d for d in known if q.device in ("any", d.kind)]
    if not known:
        return QueryResult(
            name=q.name,
            kind=q.kind,
            truth=Truth.UNKNOWN,
            detail="no device listing (nvidia-smi, npu-smi, collect_env)",
        )
    if q.model is not None:
        model = q.model
        devices = [d for d in devices if search(model.pattern, d.model, model.ignore_case)]
    n = len(devices)
    ok = n > 0
    if q.min_devices is not None:
        ok = ok and n >= q.min_devices
    if q.max_devices is not None:
        ok = ok and n <= q.max_devices
    said = " (as the user reported)" if devices and devices[0].reported else ""
    lines = [
        EvidenceLine(
            file=d.file,
            line=d.line,
            text=f"{d.kind.upper()} {d.index}: {d.model}{said}",
            source="notes" if d.reported else "devices",
        )
        for d in devices[:8]
    ]
    models = sorted({d.model for d in known})
    return QueryResult(
        name=q.name,
        kind=q.kind,
        truth=Truth.TRUE if ok else Truth.FALSE,
        lines=lines if ok else [],
        detail=f"{n} matching device(s); models seen: {', '.join(models)}",
    )
