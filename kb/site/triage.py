"""The triage page: from what the user sees ("it hangs at start-up") to a first command and
the few cases it narrows to.

The states and their first commands are the expert's part, written here once. Which cases a
state narrows to is derived, never listed by id: each state is a rule over a case's phase
(`kb.site.phases`, itself derived from tags, title and symptoms), its tags and its platforms,
so a new case lands under the states its tags say. A case no state picks is listed at the end
with the reason, so none is silently missing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dsl import model as m
from kb.site import casepage, escape, phases

DIAGNOSE = "kb diagnose --evidence ./logs"

HANG_TAGS = {"hang", "timeout", "watchdog", "hccl-timeout", "deadlock", "heartbeat", "desync"}
CRASH_TAGS = {
    "cascade",
    "crash",
    "segfault",
    "sigsegv",
    "sigabrt",
    "sigkill",
    "native-crash",
    "oom",
    "oom-killer",
    "host-oom",
    "first-failure",
    "cuda-error",
    "illegal-memory-access",
    "gpu-lost",
    "childfailederror",
}
NODES_TAGS = {
    "multi-node",
    "network",
    "infiniband",
    "roce",
    "rdma",
    "socket-ifname",
    "firewall",
    "node-rank",
    "world-size",
    "scale",
    "hccn",
    "link-down",
    "network-config",
}
SLOW_TAGS = {"performance", "socket-fallback", "slow", "throughput"}
ASCEND_TAGS = {"ascend", "npu", "cann", "hccl-timeout"}


@dataclass(frozen=True)
class State:
    key: str
    title: str
    title_zh: str
    says: str  # how the rule picks cases, shown on the page
    command: str  # the first command: what to run before anything else
    why: str  # what that command tells you
    rule: Callable[[m.Case], bool]


def _tags(case: m.Case) -> set[str]:
    return {t.lower() for t in case.tags}


def _phase(case: m.Case) -> str:
    return phases.phase_of(case).key


STATES = (
    State(
        "start-up",
        "It hangs or fails at start-up, before the first step",
        "启动时卡住或失败，第一步训练之前",
        "cases whose phase is launch and rendezvous or the first collective",
        "export NCCL_DEBUG=INFO TORCH_DISTRIBUTED_DEBUG=DETAIL TORCH_CPP_LOG_LEVEL=INFO\n"
        "# rerun, keeping every rank's output: torchrun … 2>&1 | tee ./logs/rank-$(hostname).log\n"
        + DIAGNOSE,
        "Start-up failures are told apart by what the init and bootstrap lines say "
        "(which interface, which port, which transport); these variables make them print it.",
        lambda c: _phase(c) in {"launch", "first"},
    ),
    State(
        "mid-training",
        "It hangs mid-training, after steps ran fine",
        "训练中途卡住，之前的步骤都正常",
        "cases whose phase is mid-training",
        "# set first: PID=…  (each training process on each node: nvidia-smi, npu-smi or ps)\n"
        'py-spy dump --pid "$PID" > ./logs/stack-$(hostname)-$PID.txt\n' + DIAGNOSE,
        "A hang is a rank that is somewhere else: the stacks show which rank is not in the "
        "collective the others wait in.",
        lambda c: _phase(c) == "mid",
    ),
    State(
        "eval-save",
        "It hangs at evaluation, checkpoint save or the end of an epoch",
        "在评估、保存检查点或一个 epoch 结束时卡住",
        "cases whose phase is evaluation and save",
        "# set first: PID=…  (each training process on each node)\n"
        'py-spy dump --pid "$PID" > ./logs/stack-$(hostname)-$PID.txt\n' + DIAGNOSE,
        "One rank is usually still evaluating, saving or iterating while the others already "
        "wait in a collective; the stacks show which.",
        lambda c: _phase(c) == "eval",
    ),
    State(
        "one-rank-crashes",
        "One rank crashes and the others time out",
        "一个 rank 崩溃，其余 rank 超时",
        "cases tagged with a crash, a kill or a cascade (crash, segfault, oom, sigkill, "
        "cascade, first-failure, …)",
        "# the first failure, not the timeouts that follow it:\n"
        "grep -rnE 'Traceback|Error|Killed|SIGSEGV|Segmentation fault|Xid' ./logs | head -20\n"
        "sudo dmesg -T | grep -iE 'killed process|out of memory|xid|segfault' | tail -20\n"
        + DIAGNOSE,
        "The watchdog timeouts on every other rank are the echo; the rank that died first, and "
        "the kernel's reason, is the cause.",
        lambda c: bool(_tags(c) & CRASH_TAGS),
    ),
    State(
        "several-nodes",
        "It fails only on several nodes (one node works)",
        "只有多节点时失败（单节点正常）",
        "cases tagged multi-node, network, infiniband, roce, rdma, socket-ifname, firewall, "
        "world-size, …",
        "export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET\n"
        "ip -br addr > ./logs/ip-$(hostname).txt; ibv_devinfo > ./logs/ibv-$(hostname).txt\n"
        + DIAGNOSE,
        "What differs between one node and two is the network: which interface and transport "
        "NCCL picked, and whether the ports are up.",
        lambda c: bool(_tags(c) & NODES_TAGS),
    ),
    State(
        "slow",
        "It runs, but slowly",
        "能跑，但很慢",
        "cases tagged performance, socket-fallback or slow",
        "export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET  # then rerun into ./logs\n"
        "grep -rhoE 'NET/(IB|Socket)[^ ]*|via (P2P|SHM|NET)[^ ]*' ./logs | sort | uniq -c\n"
        + DIAGNOSE,
        "A run that is only slow usually moved to a slower transport (sockets instead of "
        "InfiniBand, no P2P); the INIT/NET lines say which one it uses.",
        lambda c: bool(_tags(c) & SLOW_TAGS),
    ),
    State(
        "ascend-code",
        "Ascend printed an error code (EI0002, EI0006, EE1002, …)",
        "昇腾报了错误码（EI0002、EI0006、EE1002 等）",
        "cases tagged ascend, npu, cann or hccl-timeout",
        "grep -rhoE '\\b(E[A-Z][0-9]{4})\\b' ./logs ~/ascend/log 2>/dev/null "
        "| sort | uniq -c | sort -rn | head\n" + DIAGNOSE,
        "The code that appears first and on the fewest ranks is usually the cause; paste it "
        "into the search box for its page.",
        lambda c: bool(_tags(c) & ASCEND_TAGS),
    ),
)


def narrowed(state: State, cases: list[m.Case]) -> list[m.Case]:
    """The cases a state narrows to, in phase order then by title."""
    order = {p.key: n for n, p in enumerate(phases.PHASES)}
    picked = [c for c in cases if state.rule(c)]
    return sorted(picked, key=lambda c: (order[_phase(c)], c.title.en.lower()))


def unplaced(cases: list[m.Case]) -> list[m.Case]:
    """Cases no state picks."""
    return [c for c in cases if not any(s.rule(c) for s in STATES)]


PATH = "triage.md"
NOTHING_MATCHED = (
    (
        "Give it every rank's output, not one node's",
        "mkdir -p logs && scp 'node*:/path/to/job/*.log' ./logs/  # or your scheduler's log folder\n"
        + DIAGNOSE,
    ),
    (
        "Add what the machine says: versions, devices, the environment",
        "pip freeze > ./logs/pip-freeze.txt; env | grep -E 'NCCL|HCCL|CUDA|TORCH|MASTER' "
        "> ./logs/env.txt\n"
        "nvidia-smi -q > ./logs/nvidia-smi.txt 2>/dev/null || npu-smi info > ./logs/npu-smi.txt\n"
        + DIAGNOSE,
    ),
    (
        "Find the first error, on the first rank that failed, and paste it into the search box",
        "grep -rnE 'Error|error:|WARN|Traceback|E[A-Z][0-9]{4}' ./logs | sort -t: -k3 | head -20",
    ),
)


def _case_item(case: m.Case) -> str:
    return f"- {casepage.case_link(case, 'cases/')}"


def page(cases: list[m.Case]) -> str:
    """The Markdown of the triage page."""
    out = [
        "---",
        f"title: {escape.yaml_str('Start here: what do you see?')}",
        "description: "
        + escape.yaml_str(
            "From what your job does to the first command and the cases it narrows to."
        ),
        "hide:",
        "  - toc",
        "---",
        "",
        "# Start here: what do you see?",
        "",
        '<p lang="zh" class="kb-title-zh">从你看到的现象开始：先运行哪条命令，可能是哪几种情况</p>',
        "",
        "Pick the line that fits your job. Each gives the first command to run and the cases "
        "it narrows to; `kb diagnose` then tells those apart from your evidence. Which cases a "
        "state lists is derived from each case's phase (launch, first collective, "
        "mid-training, evaluation and save, shutdown) and its tags, so a new case appears "
        "here by itself.",
        "",
    ]
    for state in STATES:
        out.append(f"- [{escape.line(state.title)}](#{state.key})")
    out += ["- [Nothing matched: first steps](#nothing-matched)", ""]
    for state in STATES:
        picked = narrowed(state, cases)
        out += [
            f"## {escape.line(state.title)} {{ #{state.key} }}",
            "",
            f'<p lang="zh" class="kb-title-zh">{escape.html_text(state.title_zh)}</p>',
            "",
            "**First command:**",
            "",
            escape.fence(state.command, "bash"),
            "",
            escape.text(state.why),
            "",
            f"**It narrows to {len(picked)} case{'s' if len(picked) != 1 else ''}** "
            f"({escape.line(state.says)}):",
            "",
        ]
        by_phase: dict[str, list[m.Case]] = {}
        for case in picked:
            by_phase.setdefault(phases.phase_of(case).title, []).append(case)
        for title, group in by_phase.items():
            if len(by_phase) > 1:
                out += [f"*{escape.line(title)}:*", ""]
            out += [_case_item(c) for c in group]
            out.append("")
        if not picked:
            out += ["No case yet.", ""]
    out += [
        "## Nothing matched: first steps { #nothing-matched }",
        "",
        '<p lang="zh" class="kb-title-zh">都不匹配：先做这几步</p>',
        "",
    ]
    for n, (title, command) in enumerate(NOTHING_MATCHED, 1):
        out += [f"{n}. {escape.line(title)}", "", escape.indent(escape.fence(command, "bash")), ""]
    out += [
        "Still nothing? Every message `kb` knows has a page ([messages](messages/index.md)); "
        "a line it does not know is worth a case ([contributing](contributing.md)).",
        "",
    ]
    rest = unplaced(cases)
    if rest:
        out += [
            "## Cases no state above names { #other-cases }",
            "",
            "Their phase and tags fit none of the states above (a launcher's signal, a "
            "restart); they are listed so that none is missing from this page.",
            "",
        ]
        out += [_case_item(c) for c in rest]
        out.append("")
    return "\n".join(out)
