"""Evidence queries and match conditions in plain words.

A person reading a case page should not need to know the case language to see what
`kb` looks for: each query becomes one sentence ("A line matching `…` in the NCCL logs of
exactly one rank"). Every piece of case text is escaped here (see `kb.site.escape`).
"""

from __future__ import annotations

from dsl import model as m
from kb.site.escape import Md, code, line

# Evidence source names (kb.evidence.sources) in words; unknown ones are shown as code.
SOURCE_WORDS: dict[str, str] = {
    "nccl": "NCCL logs",
    "hccl": "HCCL logs",
    "plog": "Ascend plog files",
    "pytorch": "PyTorch logs",
    "torch": "PyTorch logs",
    "torchrun": "torchrun logs",
    "deepspeed": "DeepSpeed logs",
    "accelerate": "Accelerate logs",
    "stdout": "console output",
    "text-log": "text logs",
    "pip-freeze": "`pip freeze` output",
    "collect-env": "`collect_env` output",
    "nvidia-smi": "`nvidia-smi` output",
    "npu-smi": "`npu-smi` output",
    "dmesg": "kernel messages (`dmesg`)",
    "py-spy": "`py-spy dump` stacks",
    "traceback": "Python tracebacks",
}

SCOPE_WORDS: dict[m.Scope, str] = {
    m.Scope.ANY: "of any rank",
    m.Scope.ALL: "of every rank",
    m.Scope.ONE: "of exactly one rank",
    m.Scope.ALL_BUT_ONE: "of every rank but one (the silent rank is the culprit)",
}

COLLECTIVE_CHECKS: dict[str, str] = {
    "last-op-differs": "The last collective each rank logged is not the same on every rank",
    "count-differs": "The ranks logged different numbers of collectives",
    "count-equal": "Every rank logged the same number of collectives",
    "mismatch-reported": "The framework itself reported a collective mismatch between ranks",
    "seq-differs": "The order of collectives differs between ranks",
}

SOURCE_FINDINGS: dict[str, str] = {
    "collective-in-main-only-branch": (
        "The training script calls a collective inside a branch that only the main process "
        "runs (such as `if accelerator.is_main_process:`)"
    ),
    "save-in-main-only-branch": (
        "The training script saves a checkpoint inside a branch that only the main process "
        "runs, while the save itself needs every rank"
    ),
}


def regex(value: m.Regex) -> Md:
    """A pattern as inline code, with its flags in words."""
    flags = []
    if value.ignore_case:
        flags.append("ignoring case")
    if "m" in value.flags:
        flags.append("multi-line")
    if "s" in value.flags:
        flags.append("`.` matching newlines")
    if "x" in value.flags:
        flags.append("verbose")
    tail = f" ({', '.join(flags)})" if flags else ""
    return Md(code(value.pattern) + tail)


def _sources(names: list[str]) -> str:
    words = [SOURCE_WORDS.get(n, "") or f"{code(n)} evidence" for n in names]
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def _ranks(scope: m.Scope, rank: int | None) -> str:
    if scope is m.Scope.RANK:
        return f"of rank {rank}"
    return SCOPE_WORDS[scope]


def _where(q: m.LogQuery) -> str:
    place = f"in the {_sources(q.sources)}" if q.sources else "in the logs"
    if q.files:
        globs = " or ".join(code(g) for g in q.files)
        place += f" (files matching {globs})"
    return f"{place} {_ranks(q.scope, q.rank)}"


def _count(q: m.LogQuery) -> str:
    if q.max_count is not None and q.max_count == q.min_count:
        return "Exactly one line" if q.min_count == 1 else f"Exactly {q.min_count} lines"
    if q.max_count is not None and q.min_count <= 1:
        return f"At most {q.max_count} lines" if q.max_count != 1 else "At most one line"
    if q.max_count is not None:
        return f"Between {q.min_count} and {q.max_count} lines"
    return "A line" if q.min_count <= 1 else f"At least {q.min_count} lines"


def _log(q: m.LogQuery) -> str:
    return f"{_count(q)} matching {regex(q.pattern)} {_where(q)}"


def _package(q: m.PackageQuery) -> str:
    if not q.specifier:
        return f"{code(q.package)} installed, at any version"
    return f"{code(q.package)} installed at a version matching {code(q.specifier)}"


def _env(q: m.EnvQuery) -> str:
    var = code(q.variable)
    if q.test == "unset":
        return f"The environment variable {var} is not set"
    if q.test == "equals":
        return f"The environment variable {var} is set to {code(q.value or '')}"
    if q.test == "matches" and q.regex is not None:
        return f"The environment variable {var} has a value matching {regex(q.regex)}"
    return f"The environment variable {var} is set"


def _hardware(q: m.HardwareQuery) -> str:
    device = {"gpu": "GPU", "npu": "NPU", "any": "GPU or NPU"}[q.device]
    text = f"A {device}"
    if q.model is not None:
        text += f" whose model matches {regex(q.model)}"
    counts = []
    if q.min_devices is not None:
        counts.append(f"at least {q.min_devices}")
    if q.max_devices is not None:
        counts.append(f"at most {q.max_devices}")
    if counts:
        text += f", with {' and '.join(counts)} devices in the machine"
    return text


def _topology(q: m.TopologyQuery) -> str:
    links = " or ".join(code(link) for link in q.links)
    if q.pairs == "all":
        return f"Every pair of GPUs is connected through {links} (`nvidia-smi topo -m`)"
    return f"Some pair of GPUs is connected through {links} (`nvidia-smi topo -m`)"


def _collectives(q: m.CollectivesQuery) -> str:
    text = COLLECTIVE_CHECKS.get(q.check, f"Collectives check {code(q.check)}")
    if q.op is not None:
        text += f", counting only operations matching {regex(q.op)}"
    if q.min_ranks > 2:
        text += f", across at least {q.min_ranks} ranks"
    return text


def _stack(q: m.StackQuery) -> str:
    return f"A stack frame matching {regex(q.frame)} in the stacks {_ranks(q.scope, q.rank)}"


def _source(q: m.SourceQuery) -> str:
    if q.finding == "call" and q.call is not None:
        return f"The training script calls a function matching {regex(q.call)}"
    return SOURCE_FINDINGS.get(q.finding, f"Static reading finds {code(q.finding)}")


def query(q: m.Query) -> Md:
    """The sentence for one query, generated from its fields (never from free text)."""
    if isinstance(q, m.LogQuery):
        return Md(_log(q))
    if isinstance(q, m.PackageQuery):
        return Md(_package(q))
    if isinstance(q, m.EnvQuery):
        return Md(_env(q))
    if isinstance(q, m.HardwareQuery):
        return Md(_hardware(q))
    if isinstance(q, m.TopologyQuery):
        return Md(_topology(q))
    if isinstance(q, m.CollectivesQuery):
        return Md(_collectives(q))
    if isinstance(q, m.StackQuery):
        return Md(_stack(q))
    if isinstance(q, m.SourceQuery):
        return Md(_source(q))
    return Md(f"Evidence of kind {code(q.kind)}")


KIND_WORDS: dict[str, str] = {
    "log": "log line",
    "package": "installed package",
    "env": "environment variable",
    "hardware": "hardware",
    "topology": "GPU topology",
    "collectives": "collectives across ranks",
    "stack": "stack trace",
    "source": "training script",
}


def expr(node: m.Expr, top: bool = True) -> Md:
    """A condition expression in words, query names shown as code."""
    if isinstance(node, m.Ref):
        return code(node.name)
    if isinstance(node, m.Not):
        return Md(f"not {expr(node.operand, False)}")
    if isinstance(node, m.And | m.Or):
        joiner = " and " if isinstance(node, m.And) else " or "
        inner = joiner.join(expr(o, False) for o in node.operands)
        return Md(inner if top else f"({inner})")
    parts = ", ".join(expr(o, False) for o in node.operands)
    return Md(f"at least {node.count} of {parts}")


ROLE_WORDS: dict[m.Role, str] = {
    m.Role.REQUIRED: "Must hold",
    m.Role.SUPPORTING: "Makes it more likely",
    m.Role.RULING_OUT: "Rules the case out",
    m.Role.LIKELY: "Makes it likely (without proof)",
    m.Role.POSSIBLE: "Makes it possible",
}


def clause(c: m.Clause) -> Md:
    """One `require`/`support`/`rule_out` clause as a list item."""
    weight = f" (weight {c.weight:g})" if c.weight != 1.0 else ""
    return Md(f"**{ROLE_WORDS[c.role]}**{weight}: {expr(c.expr)}")


def refs(node: m.Expr) -> set[str]:
    """Names of the queries an expression mentions."""
    if isinstance(node, m.Ref):
        return {node.name}
    if isinstance(node, m.Not):
        return refs(node.operand)
    out: set[str] = set()
    for o in node.operands:
        out |= refs(o)
    return out


def roles(case: m.Case) -> dict[str, m.Role]:
    """The strongest role each query plays in the condition (require > rule_out > support)."""
    order = {m.Role.REQUIRED: 0, m.Role.RULING_OUT: 1, m.Role.LIKELY: 2, m.Role.SUPPORTING: 3,
             m.Role.POSSIBLE: 4}
    out: dict[str, m.Role] = {}
    for c in case.condition.clauses:
        for name in refs(c.expr):
            if name not in out or order[c.role] < order[out[name]]:
                out[name] = c.role
    return out


def heading(value: str) -> Md:
    """Short case text for headings and list items."""
    return line(value)
