"""Each query kind against hand-built facts: TRUE with lines, FALSE, or UNKNOWN when the
evidence it needs was not handed over."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from dsl import model as m
from kb.evidence.facts import (
    CollectiveOp,
    Device,
    EnvCapture,
    EvidenceFile,
    EvidenceLine,
    Facts,
    PackageCapture,
    SourceFinding,
    StackFrame,
    StackThread,
    Topology,
    WatchdogTimeout,
)
from kb.evidence.reader import PatternHits
from kb.match.queries import Context, evaluate
from kb.match.results import Truth


def ctx(facts: Facts, hits: dict[str, PatternHits] | None = None) -> Context:
    return Context(SimpleNamespace(facts=facts, hits=hits or {}), "c")


def line(file: str = "x.log", n: int = 1, rank: int | None = None) -> EvidenceLine:
    return EvidenceLine(file=file, line=n, rank=rank, text="t")


def test_package_unknown_true_false() -> None:
    q = m.PackageQuery(name="acc", package="accelerate", specifier=">=1.0")
    assert evaluate(q, ctx(Facts())).truth is Truth.UNKNOWN
    cap = PackageCapture(
        file="pip.txt", tool="pip-freeze", packages={"accelerate": "1.0.1"}, lines={"accelerate": 3}
    )
    r = evaluate(q, ctx(Facts(package_captures=[cap])))
    assert r.truth is Truth.TRUE and r.lines[0].where == "pip.txt:3"
    old = dataclasses.replace(cap, packages={"accelerate": "0.28.0"})
    assert evaluate(q, ctx(Facts(package_captures=[old]))).truth is Truth.FALSE
    none = dataclasses.replace(cap, packages={"torch": "2.5.1"})
    assert evaluate(q, ctx(Facts(package_captures=[none]))).truth is Truth.FALSE


def test_env_unset_needs_a_capture() -> None:
    q = m.EnvQuery(name="p2p", variable="NCCL_P2P_DISABLE", test="unset")
    assert evaluate(q, ctx(Facts())).truth is Truth.UNKNOWN
    empty = EnvCapture(file="env.txt", variables={"NCCL_DEBUG": "INFO"})
    assert evaluate(q, ctx(Facts(env_captures=[empty]))).truth is Truth.TRUE
    set_ = EnvCapture(
        file="env.txt", variables={"NCCL_P2P_DISABLE": "1"}, lines={"NCCL_P2P_DISABLE": 2}
    )
    assert evaluate(q, ctx(Facts(env_captures=[set_]))).truth is Truth.FALSE
    eq = m.EnvQuery(name="e", variable="NCCL_P2P_DISABLE", test="equals", value="1")
    assert evaluate(eq, ctx(Facts(env_captures=[set_]))).truth is Truth.TRUE


def test_hardware_model_and_count() -> None:
    q = m.HardwareQuery(name="hw", device="gpu", model=m.Regex(pattern="RTX 4090"), min_devices=2)
    assert evaluate(q, ctx(Facts())).truth is Truth.UNKNOWN
    one = [Device(index=0, model="NVIDIA GeForce RTX 4090", file="smi.txt", line=9)]
    assert evaluate(q, ctx(Facts(devices=one))).truth is Truth.FALSE
    two = [*one, Device(index=1, model="NVIDIA GeForce RTX 4090", file="smi.txt", line=12)]
    assert evaluate(q, ctx(Facts(devices=two))).truth is Truth.TRUE


def test_topology_all_pairs_pcie_and_nvlink() -> None:
    pcie = m.TopologyQuery(name="pcie", links=["PIX", "PXB", "PHB", "NODE", "SYS"], pairs="all")
    nv = m.TopologyQuery(name="nv", links=["NV#"], pairs="any")
    assert evaluate(pcie, ctx(Facts())).truth is Truth.UNKNOWN
    topo = Topology(
        file="topo.txt",
        devices=["GPU0", "GPU1", "NIC0"],
        links={"GPU0,GPU1": "PHB", "GPU1,GPU0": "PHB", "GPU0,NIC0": "NV4"},
        lines={"GPU0": 2},
    )
    facts = Facts(topology=topo)
    assert evaluate(pcie, ctx(facts)).truth is Truth.TRUE
    assert evaluate(nv, ctx(facts)).truth is Truth.FALSE  # NIC links do not count
    nvlinked = dataclasses.replace(topo, links={"GPU0,GPU1": "NV12", "GPU1,GPU0": "NV12"})
    assert evaluate(nv, ctx(Facts(topology=nvlinked))).truth is Truth.TRUE
    assert evaluate(pcie, ctx(Facts(topology=nvlinked))).truth is Truth.FALSE


def _ops(rank: int, ops: list[str]) -> list[CollectiveOp]:
    return [
        CollectiveOp(rank=rank, op=o, seq=i + 1, evidence=line(f"r{rank}.log", i + 1, rank))
        for i, o in enumerate(ops)
    ]


def test_collectives_last_op_and_counts() -> None:
    last = m.CollectivesQuery(name="last", check="last-op-differs")
    equal = m.CollectivesQuery(name="eq", check="count-equal")
    assert evaluate(last, ctx(Facts())).truth is Truth.UNKNOWN
    facts = Facts(
        collectives=_ops(0, ["allreduce", "broadcast"]) + _ops(1, ["allreduce", "allreduce"])
    )
    r = evaluate(last, ctx(facts))
    assert r.truth is Truth.TRUE and r.ranks == []  # two ranks: no majority to single out
    assert evaluate(equal, ctx(facts)).truth is Truth.TRUE
    three = facts.collectives + _ops(2, ["allreduce", "allreduce", "allreduce"])
    r3 = evaluate(last, ctx(Facts(collectives=three)))
    assert r3.ranks == [0]
    assert evaluate(equal, ctx(Facts(collectives=three))).truth is Truth.FALSE


def test_last_op_falls_back_to_watchdog_ops() -> None:
    last = m.CollectivesQuery(name="last", check="last-op-differs")
    timeouts = [
        WatchdogTimeout(rank=r, op=op, seq=5121, evidence=line("c.log", r + 1, r))
        for r, op in [(0, "allreduce"), (1, "allreduce"), (2, "broadcast")]
    ]
    r = evaluate(last, ctx(Facts(watchdog_timeouts=timeouts)))
    assert r.truth is Truth.TRUE and r.ranks == [2]


def test_watchdog_reports_far_apart_are_not_compared() -> None:
    """Two pasted consoles of different runs: rank 1 timed out in its 369,526th collective,
    rank 4 in its 20,518th. Ranks of one group cannot drift that far apart, so neither the
    op nor the queue position of one says anything about the other."""
    last = m.CollectivesQuery(name="last", check="last-op-differs")
    seq = m.CollectivesQuery(name="seq", check="seq-differs")
    apart = [
        WatchdogTimeout(rank=1, op="gather", seq=369526, evidence=line("a.log", 1, 1)),
        WatchdogTimeout(rank=4, op="allreduce", seq=20518, evidence=line("b.log", 1, 4)),
    ]
    for q in (last, seq):
        r = evaluate(q, ctx(Facts(watchdog_timeouts=apart)))
        assert r.truth is Truth.UNKNOWN and "not comparable" in r.detail
    close = [dataclasses.replace(apart[0], seq=20519), apart[1]]
    for q in (last, seq):
        assert evaluate(q, ctx(Facts(watchdog_timeouts=close))).truth is Truth.TRUE


def test_stack_scope_one_needs_two_ranks() -> None:
    q = m.StackQuery(name="s", frame=m.Regex(pattern="save_pretrained"), scope=m.Scope.ONE)
    assert evaluate(q, ctx(Facts())).truth is Truth.UNKNOWN
    t0 = StackThread(
        rank=0,
        frames=[StackFrame(function="save_pretrained", file="m.py")],
        evidence=line("py-spy-0.txt", 4, 0),
    )
    assert evaluate(q, ctx(Facts(stacks=[t0]))).truth is Truth.UNKNOWN
    t1 = StackThread(
        rank=1,
        frames=[StackFrame(function="all_reduce", file="c10d.py")],
        evidence=line("py-spy-1.txt", 4, 1),
    )
    r = evaluate(q, ctx(Facts(stacks=[t0, t1])))
    assert r.truth is Truth.TRUE and r.ranks == [0]


def test_source_finding_blames_rank_zero_only_for_the_main_branch() -> None:
    q = m.SourceQuery(name="src", finding="collective-in-main-only-branch")
    assert evaluate(q, ctx(Facts())).truth is Truth.UNKNOWN
    files = [EvidenceFile(path="train.py", kind="python-source")]
    assert evaluate(q, ctx(Facts(files=files))).truth is Truth.FALSE
    main = SourceFinding(
        finding="collective-in-main-only-branch",
        call="dist.barrier",
        guard="rank == 0 [main process only]",
        evidence=line("train.py", 9),
    )
    r = evaluate(q, ctx(Facts(files=files, source_findings=[main])))
    assert r.truth is Truth.TRUE and r.ranks == [0]
    other = dataclasses.replace(main, guard="rank == 0 [other ranks only]")
    assert evaluate(q, ctx(Facts(files=files, source_findings=[other]))).ranks == []


def test_log_scope_one_and_notes_are_not_logs() -> None:
    q = m.LogQuery(name="err", pattern=m.Regex(pattern="x"), scope=m.Scope.ONE)
    files = [
        EvidenceFile(path="r0.log", kind="pytorch", rank=0),
        EvidenceFile(path="r1.log", kind="pytorch", rank=1),
        EvidenceFile(path="notes.md", kind="notes"),
    ]
    facts = Facts(files=files, ranks=[0, 1])
    hits = PatternHits(
        lines=[line("r1.log", 7, 1), line("notes.md", 1)],
        counts={"r1.log": {1: 1}, "notes.md": {-1: 1}},
    )
    r = evaluate(q, ctx(facts, {"c/err": hits}))
    assert r.truth is Truth.TRUE and r.ranks == [1]
    assert [ln.file for ln in r.lines] == ["r1.log"]
    both = PatternHits(lines=[], counts={"r0.log": {0: 1}, "r1.log": {1: 1}})
    assert evaluate(q, ctx(facts, {"c/err": both})).truth is Truth.FALSE
    notes_only = PatternHits(lines=[], counts={"notes.md": {-1: 1}})
    assert evaluate(q, ctx(facts, {"c/err": notes_only})).truth is Truth.FALSE
    no_logs = Facts(files=[EvidenceFile(path="notes.md", kind="notes")])
    assert evaluate(q, ctx(no_logs)).truth is Truth.UNKNOWN


def test_log_scope_all_but_one_blames_the_silent_rank() -> None:
    q = m.LogQuery(name="wd", pattern=m.Regex(pattern="Watchdog"), scope=m.Scope.ALL_BUT_ONE)
    files = [EvidenceFile(path=f"r{r}.log", kind="pytorch", rank=r) for r in range(4)]
    facts = Facts(files=files, ranks=[0, 1, 2, 3])
    three = PatternHits(
        lines=[line(f"r{r}.log", 5, r) for r in (1, 2, 3)],
        counts={f"r{r}.log": {r: 1} for r in (1, 2, 3)},
    )
    r = evaluate(q, ctx(facts, {"c/wd": three}))
    assert r.truth is Truth.TRUE and r.ranks == [0]
    four = PatternHits(lines=[], counts={f"r{r}.log": {r: 1} for r in range(4)})
    assert evaluate(q, ctx(facts, {"c/wd": four})).truth is Truth.FALSE
    two = PatternHits(lines=[], counts={f"r{r}.log": {r: 1} for r in (1, 2)})
    assert evaluate(q, ctx(facts, {"c/wd": two})).truth is Truth.FALSE


def test_named_rank_group_names_the_culprit() -> None:
    q = m.LogQuery(name="hb", pattern=m.Regex(pattern=r"crimer rank \[[^/\]]*/(?P<rank>\d+)\]"))
    files = [EvidenceFile(path="plog.log", kind="plog", rank=0)]
    text = "local rank [10.0.0.1/0]: crimer rank [10.0.0.2/3] status[LOST] by informer rank"
    hit = EvidenceLine(file="plog.log", line=9, rank=0, text=text)
    hits = PatternHits(lines=[hit], counts={"plog.log": {0: 1}})
    r = evaluate(q, ctx(Facts(files=files, ranks=[0]), {"c/hb": hits}))
    assert r.truth is Truth.TRUE and r.ranks == [3]  # the line's own rank 0 only reported it
