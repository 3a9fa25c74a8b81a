"""Plain-text summary of an EvidenceBundle (`kb evidence`, and the top of `kb diagnose`)."""

from __future__ import annotations

from collections import Counter, defaultdict

from kb.evidence.facts import EvidenceLine, Facts, WatchdogTimeout
from kb.evidence.merge import ENV_PREFIXES
from kb.evidence.reader import EvidenceBundle

PACKAGES_OF_INTEREST = ("torch", "accelerate", "deepspeed", "transformers", "torch-npu", "nccl",
                        "nvidia-nccl-cu11", "nvidia-nccl-cu12", "megatron-core")  # fmt: skip


def _rank(r: int | None) -> str:
    return "?" if r is None or r < 0 else str(r)


def _short(text: str, width: int = 140) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _at(ev: EvidenceLine) -> str:
    return f"{ev.file}:{ev.line}"


def render_summary(bundle: EvidenceBundle) -> str:
    """Every section the reader filled, one line per fact, with where it came from."""
    f = bundle.facts
    out: list[str] = [f"Evidence: {bundle.root}"]
    out += _files(f)
    out += _packages(f)
    out += _env(f)
    out += _devices(f)
    out += _collectives(f)
    out += _failures(f)
    out += _progress_and_stacks(f)
    out += _findings(f)
    if f.conflicts:
        out += ["", "Conflicts:"] + [f"  {c}" for c in f.conflicts]
    if f.skipped:
        out += ["", f"Skipped ({len(f.skipped)}):"] + [f"  {s.path}: {s.reason}" for s in f.skipped]
    return "\n".join(out) + "\n"


_GUESSES = {  # ranks the reader could only guess, said next to the rank
    "device": " (device id)",
    "path-guess": " (guessed: node × the local ranks present)",
}


def _files(f: Facts) -> list[str]:
    out = ["", f"Files ({len(f.files)}):"]
    by_kind: dict[str, list[str]] = defaultdict(list)
    for ef in f.files:
        how = _GUESSES.get(ef.rank_from or "", "")
        where = f" [rank {ef.rank}{how}]" if ef.rank is not None else ""
        node = f" [{ef.node}]" if ef.node else ""
        count = "1 line" if ef.lines == 1 else f"{ef.lines} lines"
        by_kind[ef.kind].append(f"{ef.path}{where}{node} ({count})")
    for kind in sorted(by_kind):
        out.append(f"  {kind}:")
        out += [f"    {p}" for p in by_kind[kind]]
    ranks = ", ".join(map(str, f.ranks)) or "none"
    out.append(f"  ranks seen: {ranks}; world size: {f.world_size or 'unknown'}")
    return out


def _packages(f: Facts) -> list[str]:
    rows = []
    for cap in f.package_captures:
        for name in PACKAGES_OF_INTEREST:
            if name in cap.packages:
                rows.append(
                    f"  {name} {cap.packages[name]}  ({cap.file}:{cap.lines.get(name, 0)}, {cap.tool})"
                )
    versions = [
        f"  {label}: {value}"
        for label, value in (
            (_driver_label(f), f.driver_version),
            ("CUDA (driver)", f.cuda_version),
            ("CUDA (torch build)", f.torch_cuda_version),
            ("CANN", f.cann_version),
            ("NCCL", f.nccl_version),
        )
        if value
    ]
    if not rows and not versions:
        return []
    return ["", "Versions:", *versions, *rows]


def _driver_label(f: Facts) -> str:
    """npu-smi fills the same field with the Ascend driver's version (24.1.rc2)."""
    kinds = {d.kind for d in f.devices}
    return (
        "Ascend NPU driver"
        if kinds == {"npu"}
        else "NVIDIA driver"
        if kinds == {"gpu"}
        else "driver"
    )


def _env(f: Facts) -> list[str]:
    rows = []
    for cap in f.env_captures:
        for name in sorted(cap.variables):
            if name.startswith(ENV_PREFIXES):
                rows.append(
                    f"  {name}={cap.variables[name]}  ({cap.file}:{cap.lines.get(name, 0)})"
                )
    if f.accelerate_config:
        keys = ("distributed_type", "num_processes", "num_machines", "mixed_precision", "gpu_ids")
        cfg = ", ".join(f"{k}={f.accelerate_config[k]}" for k in keys if k in f.accelerate_config)
        rows.append(f"  accelerate config: {cfg or '(no common keys)'}")
    return ["", "Environment:", *rows] if rows else []


def _devices(f: Facts) -> list[str]:
    out = []
    if f.devices:
        models = Counter((d.file, d.kind, d.model) for d in f.devices)
        out += ["", "Devices:"]
        out += [f"  {n} x {model} ({kind}, {file})" for (file, kind, model), n in models.items()]
    if f.topology is not None:
        out += ["", f"Topology ({f.topology.file}):"]
        for dev in f.topology.devices:
            if dev.startswith("GPU"):
                links = [f"{other}:{f.topology.links.get(f'{dev},{other}', '?')}"
                         for other in f.topology.devices if other != dev and other.startswith("GPU")]  # fmt: skip
                out.append(f"  {dev} " + " ".join(links))
    if f.nccl_transports:
        kinds = Counter(t.transport for t in f.nccl_transports)
        out.append("  NCCL transports: " + ", ".join(f"{k} x{n}" for k, n in kinds.most_common()))
    return out


def _collectives(f: Facts) -> list[str]:
    out = []
    if f.collectives:
        out += ["", "Collectives per rank:"]
        per: dict[int, list] = defaultdict(list)
        for c in f.collectives:
            per[c.rank].append(c)
        for rank in sorted(per):
            ops = per[rank]
            last = ops[-1]
            seq = f" seq {last.seq}" if last.seq is not None else ""
            out.append(
                f"  rank {_rank(rank)}: {len(ops)} ops, last {last.op}{seq} ({last.file}:{last.line})"
            )
    if f.watchdog_timeouts:
        # the first report of each rank names the collective it hung in; later ones repeat it
        out += ["", "Watchdog timeouts (the first of each rank):"]
        by_rank: dict[int | None, list[WatchdogTimeout]] = defaultdict(list)
        for w in f.watchdog_timeouts:
            by_rank[w.rank].append(w)
        for who in sorted(by_rank, key=lambda r: -1 if r is None else r):
            w, more = by_rank[who][0], len(by_rank[who]) - 1
            out.append(
                f"  rank {_rank(who)}: {w.op} seq {w.seq} timeout {w.timeout_ms} ms, ran {w.elapsed_ms} ms"
                f" ({_at(w.evidence)})" + (f" (+{more} more)" if more else "")
            )
    if f.mismatches:
        out += ["", "Collective mismatches:"]
        for m in f.mismatches:
            out.append(
                f"  rank {_rank(m.rank_a)} {m.op_a} vs rank {_rank(m.rank_b)} {m.op_b} ({_at(m.evidence)})"
            )
    return out


def _failures(f: Facts) -> list[str]:
    out = []
    if f.process_failures:
        out += ["", "Process failures:"]
        for p in f.process_failures:
            root = " [root cause]" if p.root_cause else ""
            sig = f" {p.signal}" if p.signal else ""
            # with an error file, the exception the worker died of (not torchrun's hint)
            died = f": {_short(p.traceback, 100)}" if p.error_file and p.traceback else ""
            out.append(
                f"  rank {_rank(p.rank)} local {p.local_rank} exit {p.exitcode}{sig}{root}{died}"
                f" ({_at(p.evidence)})"
            )
    if f.suspicious:
        out += ["", f"Suspicious lines ({len(f.suspicious)}, first 20):"]
        out += [f"  [{_rank(e.rank)}] {_at(e)}: {_short(e.text)}" for e in f.suspicious[:20]]
    return out


def _progress_and_stacks(f: Facts) -> list[str]:
    out = []
    if f.last_progress:
        out += ["", "Last progress per rank:"]
        for rank in sorted(f.last_progress):
            ev = f.last_progress[rank]
            out.append(f"  rank {_rank(rank)}: {_short(ev.text, 100)} ({_at(ev)})")
    if f.stacks:
        out += ["", "Stacks (innermost frame):"]
        for t in f.stacks:
            top = t.frames[0] if t.frames else None
            frame = f"{top.function} ({top.file}:{top.line})" if top else "(no frames)"
            out.append(f"  rank {_rank(t.rank)} pid {t.pid or '?'} {t.thread}: {frame}")
    return out


def _findings(f: Facts) -> list[str]:
    out = []
    if f.source_findings:
        out += ["", "Source findings:"]
        out += [
            f"  {s.finding}: {s.call} under `{s.guard}` ({_at(s.evidence)})"
            for s in f.source_findings
        ]
    if f.notes:
        out += ["", "Notes:"]
        out += [f"  {_short(n.text)}" for n in f.notes[:30]]
    return out
