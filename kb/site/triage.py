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
from kb.site.short_titles import short_title

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
    title: str  # the situation in the user's own words
    title_zh: str
    says: str  # how the rule picks cases, shown on the page
    command: str  # the first command: what to run before anything else (at most 2 lines)
    why: str  # what that command tells you
    rule: Callable[[m.Case], bool]


def _tags(case: m.Case) -> set[str]:
    return {t.lower() for t in case.tags}


def _phase(case: m.Case) -> str:
    return phases.phase_of(case).key


STACKS = (
    "# on each node; train.py is your script's name\n"
    'for pid in $(pgrep -f train.py); do py-spy dump --pid "$pid" '
    "> ./logs/stack-$(hostname)-$pid.txt; done"
)

STATES = (
    State(
        "start-up",
        "Hangs or fails at start-up",
        "启动时卡住或失败",
        "cases of the start-up and the first step",
        "export NCCL_DEBUG=INFO TORCH_DISTRIBUTED_DEBUG=DETAIL TORCH_CPP_LOG_LEVEL=INFO\n"
        "# then rerun on every node, keeping all output: … 2>&1 | tee ./logs/$(hostname).log",
        "Start-up failures are told apart by what the init and bootstrap lines say "
        "(which interface, which port, which transport); these variables make them print it.",
        lambda c: _phase(c) in {"launch", "first"},
    ),
    State(
        "mid-training",
        "Hangs mid-training, after steps ran fine",
        "训练中途卡住，之前的步骤都正常",
        "cases of mid-training",
        STACKS,
        "A hang is a rank that is somewhere else: the stacks show which rank is not in the "
        "collective the others wait in.",
        lambda c: _phase(c) == "mid",
    ),
    State(
        "eval-save",
        "Hangs at evaluation or save",
        "在评估、保存检查点或一个 epoch 结束时卡住",
        "cases of evaluation and save",
        STACKS,
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
        "grep -rnE 'Traceback|Error|Killed|SIGSEGV|Segmentation fault|Xid' ./logs | head -20\n"
        "sudo dmesg -T | grep -iE 'killed process|out of memory|xid|segfault' | tail -20",
        "The watchdog timeouts on every other rank are the echo; the rank that died first, and "
        "the kernel's reason, is the cause.",
        lambda c: bool(_tags(c) & CRASH_TAGS),
    ),
    State(
        "several-nodes",
        "Fails only on several nodes (one node works)",
        "只有多节点时失败（单节点正常）",
        "cases tagged multi-node, network, infiniband, roce, rdma, socket-ifname, firewall, "
        "world-size, …",
        "export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET  # then rerun into ./logs\n"
        "ip -br addr > ./logs/ip-$(hostname).txt; ibv_devinfo > ./logs/ibv-$(hostname).txt",
        "What differs between one node and two is the network: which interface and transport "
        "NCCL picked, and whether the ports are up.",
        lambda c: bool(_tags(c) & NODES_TAGS),
    ),
    State(
        "slow",
        "Slow, but runs",
        "能跑，但很慢",
        "cases tagged performance, socket-fallback or slow",
        "export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET  # then rerun into ./logs\n"
        "grep -rhoE 'NET/(IB|Socket)[^ ]*|via (P2P|SHM|NET)[^ ]*' ./logs | sort | uniq -c",
        "A run that is only slow usually moved to a slower transport (sockets instead of "
        "InfiniBand, no P2P); the INIT/NET lines say which one it uses.",
        lambda c: bool(_tags(c) & SLOW_TAGS),
    ),
    State(
        "ascend-code",
        "Ascend printed an error code (EI0002, EE1002, …)",
        "昇腾报了错误码（EI0002、EE1002 等）",
        "cases tagged ascend, npu, cann or hccl-timeout",
        "grep -rhoE '\\b(E[A-Z][0-9]{4})\\b' ./logs ~/ascend/log 2>/dev/null "
        "| sort | uniq -c | sort -rn | head",
        "The code that appears first and on the fewest ranks is usually the cause; paste it "
        "into the search box for its page.",
        lambda c: bool(_tags(c) & ASCEND_TAGS),
    ),
)

FEW = 3  # the cases shown open under a state: the most often seen; the rest are collapsed
FEW_TITLE = 48  # characters of their titles: three fit about one line at 1280 px


def narrowed(state: State, cases: list[m.Case]) -> list[m.Case]:
    """The cases a state narrows to, in phase order then by title."""
    order = {p.key: n for n, p in enumerate(phases.PHASES)}
    picked = [c for c in cases if state.rule(c)]
    return sorted(picked, key=lambda c: (order[_phase(c)], c.title.en.lower()))


def unplaced(cases: list[m.Case]) -> list[m.Case]:
    """Cases no state picks."""
    return [c for c in cases if not any(s.rule(c) for s in STATES)]


def most_seen(state: State, cases: list[m.Case]) -> list[m.Case]:
    """The `FEW` cases of a state seen in the most stored real reports: shown open."""
    picked = narrowed(state, cases)
    ranked = sorted(picked, key=lambda c: (-casepage.status(c).real_reports, c.title.en.lower()))
    return ranked[:FEW]


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


def _heading(title: str, title_zh: str, key: str) -> str:
    zh = f' <span lang="zh" class="kb-triage-zh">{escape.html_text(title_zh)}</span>'
    return f"## {escape.line(title)}{zh} {{ #{key} }}"


def _links(cases: list[m.Case]) -> str:
    """The few cases by their short titles (the whole title is one hover away, on the page)."""
    return " · ".join(
        f"[{escape.line(short_title(c, FEW_TITLE))}]({casepage.case_href(c.id, 'cases/')})"
        for c in cases
    )


def _details(summary: str, body: list[str]) -> list[str]:
    """A closed box: the page stays a list of situations a person scans."""
    out = [f'??? kb-triage "{summary.replace(chr(34), "")}"', ""]
    out += [escape.indent(b) if b else "" for b in body]
    return [*out, ""]


def _state(state: State, cases: list[m.Case]) -> list[str]:
    picked = narrowed(state, cases)
    few = most_seen(state, cases)
    n = len(picked)
    out = [
        _heading(state.title, state.title_zh, state.key),
        "",
        escape.fence(state.command, "bash"),
        "",
    ]
    if few:
        out += [f"**Most often:** {_links(few)}", ""]
    else:
        out += ["No case yet.", ""]
    body = [escape.text(state.why), "", f"Picked: {escape.line(state.says)}.", ""]
    by_phase: dict[str, list[m.Case]] = {}
    for case in picked:
        by_phase.setdefault(phases.phase_of(case).title, []).append(case)
    for title, group in by_phase.items():
        body += [f"*{escape.line(title)}:*", ""]
        body += [_case_item(c) for c in group]
        body.append("")
    return out + _details(
        f"All {n} case{'s' if n != 1 else ''} it narrows to, and why this command", body
    )


def page(cases: list[m.Case]) -> str:
    """The Markdown of the triage page: one short block per situation, details closed."""
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
        "Find the line that fits your job and run its first command; it collects into "
        f"`./logs`. Then `{DIAGNOSE}` tells the cases apart from what it collected.",
        "",
    ]
    for state in STATES:
        out += _state(state, cases)
    first_title, first_command = NOTHING_MATCHED[0]
    out += [
        _heading("Nothing matched: first steps", "都不匹配：先做这几步", "nothing-matched"),
        "",
        escape.fence(first_command, "bash"),
        "",
    ]
    body = [f"1. {escape.line(first_title)} (the command above)", ""]
    for n, (title, command) in enumerate(NOTHING_MATCHED[1:], 2):
        body += [f"{n}. {escape.line(title)}", "", escape.indent(escape.fence(command, "bash")), ""]
    body += [
        "Still nothing? Every message `kb` knows has a page ([messages](messages/index.md)); "
        "a line it does not know is worth a case ([contributing](contributing.md)).",
        "",
    ]
    rest = unplaced(cases)
    if rest:  # listed so that none is missing from this page
        body += [
            '<p id="other-cases"><strong>Cases no situation above names</strong>: their phase '
            "and tags fit none of the situations above (a launcher's signal, a restart).</p>",
            "",
            *[_case_item(c) for c in rest],
            "",
        ]
    out += _details(
        "Then: the machine's versions, the first error, and cases no situation names", body
    )
    return "\n".join(out)
