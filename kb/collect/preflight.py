"""`kb preflight`: the cases' environment, package, hardware and topology queries evaluated
against the live machine (the captures of `kb collect`, read by the normal reader), so a
known-bad combination is named before the launch rather than diagnosed after the hang.

A case warns when the machine alone makes it hold as far as it can hold before a job runs:
- it applies here (its platforms: `cuda` needs an NVIDIA GPU, `ascend` an NPU; cases tagged
  `infiniband`, `roce` or `rdma` need an RDMA device);
- no `require` clause is false and no `rule_out` clause is true, with the symptoms a job
  would print (logs, collectives, stacks, scripts) counted as unknown, not as absent;
- a `require` clause, or a `support` of weight 2 or more, holds on the machine alone (a
  lighter support is context, such as running in Kubernetes).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dsl import model as m
from kb.match.condition import evaluate_expr, positive_refs
from kb.match.queries import Context, evaluate
from kb.match.results import QueryResult, Truth

MACHINE_KINDS = frozenset({"env", "package", "hardware", "topology"})
JOB_KINDS = frozenset({"collectives", "stack", "source"})  # only a running job shows these
RDMA_TAGS = frozenset({"infiniband", "roce", "rdma"})
SOCKET_CASE = "nccl-socket-wrong-interface"


@dataclass(kw_only=True)
class Warning_:
    case: str
    title: str
    because: list[QueryResult] = field(default_factory=list)
    remedy: str = ""  # the first remedy's first step
    run: str = ""  # its first command, when it has one
    page: str = ""


@dataclass(kw_only=True)
class Machine:
    """What the captures say about the machine, for the applicability gates."""

    platforms: set[str] = field(default_factory=set)
    rdma: bool = False
    interfaces: list[str] = field(default_factory=list)


_IFACE = re.compile(r"^\d+: ([^:@\s]+)(?:@\S+)?:", re.M)


def machine_from(bundle: Any, folder: Path) -> Machine:
    facts = bundle.facts
    out = Machine()
    kinds = {d.kind for d in facts.devices if not d.reported}
    if "gpu" in kinds:
        out.platforms.add("cuda")
    if "npu" in kinds:
        out.platforms.add("ascend")
    for name in ("ibv-devinfo.txt", "ibstat.txt"):
        text = _read(folder / name)
        if re.search(r"^hca_id:|^CA '", text, re.M):
            out.rdma = True
    out.interfaces = _IFACE.findall(_read(folder / "ip-addr.txt"))
    if not out.interfaces and os.path.isdir("/sys/class/net"):
        out.interfaces = sorted(os.listdir("/sys/class/net"))
    return out


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[: 1 << 20]
    except OSError:
        return ""


def applies(case: m.Case, machine: Machine) -> bool:
    if case.platforms and not set(case.platforms) & machine.platforms:
        return False
    return not (set(case.tags) & RDMA_TAGS and not machine.rdma)


def machine_truth(q: m.Query, r: QueryResult) -> Truth:
    """A query's truth before any job ran: what the captures show, symptoms unknown."""
    if q.kind in JOB_KINDS:
        return Truth.UNKNOWN
    if q.kind in MACHINE_KINDS:
        return r.truth
    return Truth.TRUE if r.truth is Truth.TRUE else Truth.UNKNOWN  # a log seen in a capture


def _first_step(case: m.Case) -> tuple[str, str]:
    for remedy in case.remedies:
        for step in remedy.steps:
            run = step.commands[0].code.strip() if step.commands else ""
            return f"{remedy.title.en}: {step.title.en}", run
    return "", ""


STRONG_WEIGHT = 2.0  # a support this heavy is a sign of the case, not its context


def _strong(clause: m.Clause) -> bool:
    """A clause whose truth speaks for the case: a requirement, or a heavy support (a light
    one is context: in Kubernetes, evaluation code, a CUDA 12 driver)."""
    return clause.role is m.Role.REQUIRED or (
        clause.role is m.Role.SUPPORTING and clause.weight >= STRONG_WEIGHT
    )


def check_case(case: m.Case, bundle: Any, machine: Machine, page: str) -> Warning_ | None:
    """The warning a case gives on this machine, or None."""
    if not applies(case, machine):
        return None
    ctx = Context(bundle, case.id)
    results = {q.name: evaluate(q, ctx) for q in case.queries}
    queries = {q.name: q for q in case.queries}
    truths = {n: machine_truth(queries[n], r) for n, r in results.items()}
    because: list[QueryResult] = []
    for clause in case.condition.clauses:
        truth = evaluate_expr(clause.expr, truths)
        if clause.role is m.Role.REQUIRED and truth is Truth.FALSE:
            return None
        if clause.role is m.Role.RULING_OUT and truth is Truth.TRUE:
            return None
        if truth is Truth.TRUE and _strong(clause):
            for name, negated in positive_refs(clause.expr):
                q = queries.get(name)
                held = truths.get(name) is Truth.TRUE and not negated
                if q is not None and held and all(b.name != name for b in because):
                    because.append(results[name])
    if not because:
        return None
    remedy, run = _first_step(case)
    return Warning_(case=case.id, title=case.title.en, because=because, remedy=remedy,
                    run=run, page=page)  # fmt: skip


def socket_ifname_warning(environ: dict[str, str], machine: Machine,
                          case: m.Case | None, page: str) -> Warning_ | None:  # fmt: skip
    """NCCL_SOCKET_IFNAME naming no interface of this machine (NCCL matches names by prefix,
    `=name` exactly, `^...` excludes): NCCL finds no socket interface and the job cannot
    start. The case's queries read NCCL's own complaint, which only a launch prints, so this
    one combination is checked here against the interface list of `ip addr`."""
    value = environ.get("NCCL_SOCKET_IFNAME", "").strip()
    if not value or value.startswith("^") or case is None or not machine.interfaces:
        return None
    exact = value.startswith("=")
    wanted = [w for w in value.lstrip("=").split(",") if w]
    found = [i for i in machine.interfaces
             if any(i == w if exact else i.startswith(w) for w in wanted)]  # fmt: skip
    if found:
        return None
    detail = (f"NCCL_SOCKET_IFNAME={value} names no interface of this machine "
              f"(interfaces: {', '.join(machine.interfaces)})")  # fmt: skip
    result = QueryResult(name="socket_ifname_missing", kind="env", truth=Truth.TRUE,
                         detail=detail)  # fmt: skip
    remedy, run = _first_step(case)
    return Warning_(case=case.id, title=case.title.en, because=[result], remedy=remedy,
                    run=run, page=page)  # fmt: skip


@dataclass(kw_only=True)
class PreflightReport:
    warnings: list[Warning_] = field(default_factory=list)
    checked: int = 0  # cases that apply to this machine
    skipped: int = 0  # cases for another platform or fabric
    machine: Machine = field(default_factory=Machine)
    missing_tools: list[str] = field(default_factory=list)


def preflight(kb: Any, environ: dict[str, str], *, python: str | None = None,
              timeout: float = 20.0) -> PreflightReport:  # fmt: skip
    """Collects the machine into a private temporary folder, reads it, checks every case."""
    import tempfile

    from kb.collect.collector import collect_to, gather
    from kb.match.diagnose import read_bundle, site_page

    report = PreflightReport()
    captured = gather(environ, python=python, timeout=timeout)
    report.missing_tools = [c.output.command for c in captured.captured
                            if c.output.note.startswith("not found: `")]  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="kb-preflight-") as tmp:
        folder = Path(tmp) / "collect"
        collect_to(folder, captured)
        bundle = read_bundle(kb, str(folder), workers=1)
        report.machine = machine_from(bundle, folder)
        for compiled in kb.cases:
            case = compiled.case
            if not applies(case, report.machine):
                report.skipped += 1
                continue
            report.checked += 1
            found = check_case(case, bundle, report.machine, site_page(case.id))
            if found is not None:
                report.warnings.append(found)
    if all(w.case != SOCKET_CASE for w in report.warnings):
        socket = kb.get(SOCKET_CASE)
        extra = socket_ifname_warning(environ, report.machine,
                                      socket.case if socket else None,
                                      site_page(SOCKET_CASE))  # fmt: skip
        if extra is not None:
            report.warnings.append(extra)
    return report
