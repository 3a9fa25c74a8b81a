"""The phase of a job each case strikes in, for the "by phase" page.

Cases have no phase field, so it is derived, deterministically, from words: each phase has
a list of keywords; a keyword found among the case's tags counts 3, in its title 2, in its
summary or symptoms 1. The phase with the highest score wins, a tie goes to the earlier
phase, and a case no keyword speaks for is put in "mid-training" (where most failures
surface). Change the keywords here, not on the page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dsl import model as m


@dataclass(frozen=True)
class Phase:
    key: str  # the internal id (anchors, triage rules); never shown
    title: str  # in the user's words: when did it fail?
    title_zh: str
    keywords: tuple[str, ...]


PHASES = (
    Phase(
        "launch",
        "Start-up",
        "启动时",
        (
            "launch",
            "rendezvous",
            "tcpstore",
            "init",
            "bootstrap",
            "master-port",
            "port",
            "node-rank",
            "world-size",
            "import-error",
            "undefined-symbol",
            "environment",
            "driver",
            "cuda-version",
            "rank-table",
            "device-busy",
            "leftover-process",
            "device-assignment",
            "configuration",
            "memlock",
            "gid-index",
            "socket-ifname",
            "address already in use",
            "version mismatch",
            "cannot open shared object",
        ),
    ),
    Phase(
        "first",
        "First step",
        "第一步",
        (
            "first collective",
            "first allreduce",
            "first-collective",
            "prepare()",
            "p2p",
            "notify-wait",
            "collective-mismatch",
            "desync",
            "cpu-tensor",
            "backend",
            "object-collective",
            "never starts",
            "at start",
        ),
    ),
    Phase(
        "mid",
        "Mid-training",
        "训练中途",
        (
            "oom",
            "xid",
            "ecc",
            "hardware",
            "link-down",
            "heartbeat",
            "segfault",
            "crash",
            "dataloader",
            "num-workers",
            "unused-parameters",
            "gradient",
            "ddp",
            "network",
            "infiniband",
            "rdma",
            "mid-training",
            "performance",
            "regression",
            "host-oom",
            "cascade",
        ),
    ),
    Phase(
        "eval",
        "Evaluation or save",
        "评估或保存时",
        (
            "evaluation",
            "checkpoint",
            "save",
            "end-of-epoch",
            "uneven-inputs",
            "eval",
            "preprocessing",
            "barrier",
        ),
    ),
    Phase(
        "shutdown",
        "Exit or restart",
        "退出或重启时",
        (
            "shutdown",
            "destroy_process_group",
            "exit",
            "teardown",
            "restart",
            "signal",
            "sighup",
            "preemption",
            "time-limit",
            "elastic",
        ),
    ),
)
DEFAULT = "mid"


def _count(keyword: str, text: str) -> int:
    return len(re.findall(r"(?<![\w-])" + re.escape(keyword) + r"(?![\w-])", text))


def score(case: m.Case, phase: Phase) -> int:
    tags = " ".join(case.tags).lower()
    title = case.title.en.lower()
    body = " ".join([case.summary.en, *(s.text.en for s in case.symptoms)]).lower()
    return sum(3 * _count(k, tags) + 2 * _count(k, title) + _count(k, body) for k in phase.keywords)


def phase_of(case: m.Case) -> Phase:
    """The phase with the highest score; ties to the earlier phase; none to mid-training."""
    scores = [(score(case, p), -n, p) for n, p in enumerate(PHASES)]
    best = max(scores, key=lambda s: (s[0], s[1]))
    if best[0] == 0:
        return next(p for p in PHASES if p.key == DEFAULT)
    return best[2]


def by_phase(cases: list[m.Case]) -> list[tuple[Phase, list[m.Case]]]:
    groups: dict[str, list[m.Case]] = {p.key: [] for p in PHASES}
    for case in cases:
        groups[phase_of(case).key].append(case)
    return [(p, groups[p.key]) for p in PHASES]
