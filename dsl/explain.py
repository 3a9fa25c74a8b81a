"""A compiled checker in readable form (`kb compile --show ID`), so a reviewer sees exactly
what will run: which patterns are scanned for, which facts each query reads, and how
the condition combines them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a warm run explains records (kb.cache.records), without the model
    from dsl import model as m
    from dsl.compiler import ScanPattern


def describe_query(q: m.Query) -> str:
    """One line saying what the query checks: its kind's one description (the site's
    sentence, values in backticks) and the evidence it reads. A query loaded from the
    knowledge-base snapshot carries the line, made when the snapshot was written
    (`_explained`), so the query kinds and their models need not be imported."""
    told: str | None = getattr(q, "_explained", None)
    if told is not None:
        return told
    from dsl.kinds import KINDS

    kind = KINDS.get(q.kind)
    return kind.explain(q) if kind is not None else q.kind


def describe_expr(expr: m.Expr) -> str:
    if expr.op == "ref":
        return expr.name
    if expr.op == "not":
        inner = describe_expr(expr.operand)
        return f"not {inner}" if expr.operand.op in ("ref", "not") else f"not ({inner})"
    if expr.op == "at_least":
        return f"at_least {expr.count} of ({', '.join(describe_expr(o) for o in expr.operands)})"
    joiner = " and " if expr.op == "and" else " or "
    parts = []
    for operand in expr.operands:
        text = describe_expr(operand)
        parts.append(f"({text})" if operand.op in ("and", "or") else text)
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
    lines.append(
        "    confirmed when every `require` is true, likely when every `likely` is, possible"
    )
    lines.append("    when every `possible` is; a true `rule_out` vetoes every level;")
    lines.append("    score = weight of true require/support clauses / weight of all of them")
    return "\n".join(lines)
