"""A compiled checker in readable form (`kb compile --show ID`), so a reviewer sees exactly
what will run: which patterns are scanned for, which facts each query reads, and how
the condition combines them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsl import model as m

if TYPE_CHECKING:
    from dsl.compiler import ScanPattern


def describe_query(q: m.Query) -> str:
    """One line saying what the query checks, in terms of facts and patterns."""
    if isinstance(q, m.LogQuery):
        where = f"files {q.files}" if q.files else "every text file"
        if q.sources:
            where += f" of kind {q.sources}"
        scope = {
            m.Scope.ANY: "on any rank",
            m.Scope.ALL: "on every rank that left logs",
            m.Scope.ONE: "on exactly one rank",
            m.Scope.RANK: f"on rank {q.rank}",
            m.Scope.ALL_BUT_ONE: "on every rank that left logs but one (that one is blamed)",
        }[q.scope]
        count = f"at least {q.min_count} line(s)"
        if q.max_count is not None:
            count += f" and at most {q.max_count}"
        return f"log: /{q.pattern.pattern}/{q.pattern.flags} in {where}, {count} {scope}"
    if isinstance(q, m.PackageQuery):
        return f"package: {q.package} installed at {q.specifier or 'any version'}" \
               " (pip freeze / pip list / conda list / collect_env / accelerate env)"
    if isinstance(q, m.EnvQuery):
        test = {"set": "is set", "unset": "is not set", "equals": f"equals {q.value!r}",
                "matches": f"matches /{q.regex.pattern if q.regex else ''}/"}[q.test]
        return f"env: {q.variable} {test} (env dumps, accelerate env, NCCL 'set by environment')"
    if isinstance(q, m.HardwareQuery):
        parts = [f"{q.device} devices"]
        if q.model:
            parts.append(f"model /{q.model.pattern}/{q.model.flags}")
        if q.min_devices is not None:
            parts.append(f"≥ {q.min_devices}")
        if q.max_devices is not None:
            parts.append(f"≤ {q.max_devices}")
        return "hardware: " + ", ".join(parts) + " (nvidia-smi, npu-smi, collect_env)"
    if isinstance(q, m.TopologyQuery):
        return f"topology: {q.pairs} GPU pair linked by {q.links} (nvidia-smi topo -m)"
    if isinstance(q, m.CollectivesQuery):
        op = f" for ops /{q.op.pattern}/" if q.op else ""
        return f"collectives: {q.check}{op} across ≥ {q.min_ranks} ranks " \
               "(HCCL entry logs, DETAIL fingerprints, watchdog)"
    if isinstance(q, m.StackQuery):
        return f"stack: a frame matching /{q.frame.pattern}/ {q.scope.value} " \
               "(py-spy, faulthandler, tracebacks)"
    if isinstance(q, m.SourceQuery):
        call = f" calling /{q.call.pattern}/" if q.call else ""
        return f"source: {q.finding}{call} (training scripts, read with ast)"
    return q.kind  # pragma: no cover


def describe_expr(expr: m.Expr) -> str:
    if isinstance(expr, m.Ref):
        return expr.name
    if isinstance(expr, m.Not):
        inner = describe_expr(expr.operand)
        return f"not {inner}" if isinstance(expr.operand, m.Ref | m.Not) else f"not ({inner})"
    if isinstance(expr, m.AtLeast):
        return f"at_least {expr.count} of ({', '.join(describe_expr(o) for o in expr.operands)})"
    joiner = " and " if isinstance(expr, m.And) else " or "
    parts = []
    for operand in expr.operands:
        text = describe_expr(operand)
        parts.append(f"({text})" if isinstance(operand, m.And | m.Or) else text)
    return joiner.join(parts)


def explain_case(case: m.Case, patterns: list[ScanPattern]) -> str:
    lines = [f"checker {case.id}", f"  title: {case.title.en}"]
    if case.specializes:
        lines.append(f"  wins over: {', '.join(case.specializes)}")
    lines.append("  scan patterns (one pass over every file, shared with all cases):")
    for p in patterns:
        flag = " (ignore case)" if p.ignore_case else ""
        lines.append(f"    {p.key}: /{p.regex}/{flag}")
    if not patterns:
        lines.append("    (none)")
    lines.append("  queries (each is true, false, or unknown when its evidence is missing):")
    for q in case.queries:
        lines.append(f"    {q.name}: {describe_query(q)}")
    lines.append("  verdict:")
    for clause in case.condition.clauses:
        weight = f"  [weight {clause.weight:g}]" if clause.weight != 1 else ""
        lines.append(f"    {clause.role.value:<8} {describe_expr(clause.expr)}{weight}")
    lines.append("    confirmed when every `require` is true, likely when every `likely` is, possible")
    lines.append("    when every `possible` is; a true `rule_out` vetoes every level;")
    lines.append("    score = weight of true require/support clauses / weight of all of them")
    return "\n".join(lines)
