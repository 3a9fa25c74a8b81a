"""Evidence queries and match conditions in plain words.

A person reading a case page should not need to know the case language to see what
`kb` looks for: each query becomes one sentence ("A line matching `…` in the NCCL logs of
exactly one rank"), its kind's one description (dsl/kinds/), which `kb compile --show` and
the report print too. Every piece of case text is escaped here (see `kb.site.escape`).
"""

from __future__ import annotations

from collections.abc import Callable

from dsl import model as m
from dsl.kinds import KINDS
from dsl.kinds.base import Phrase, regex_phrase
from kb.site.escape import Md, code, line


def render(phrase: Phrase) -> Md:
    """A kind's description as Markdown: its words as written, the case's values as code."""
    return Md("".join(p if isinstance(p, str) else code(p.text) for p in phrase))


def regex(value: m.Regex) -> Md:
    """A pattern as inline code, with its flags in words."""
    return render(regex_phrase(value))


def query(q: m.Query) -> Md:
    """The sentence for one query, generated from its fields (never from free text)."""
    kind = KINDS.get(q.kind)
    if kind is None:
        return Md(f"Evidence of kind {code(q.kind)}")
    return render(kind.describe(q))


# what each kind is about, for the site's kind column (the words live in dsl/kinds/)
KIND_WORDS: dict[str, str] = {name: kind.words for name, kind in KINDS.items()}


def expr(node: m.Expr, top: bool = True, leaf: Callable[[str], str] = code) -> Md:
    """A condition expression in words, query names shown as code (or as `leaf` says: the
    report passes each query's own description)."""
    if isinstance(node, m.Ref):
        return Md(leaf(node.name))
    if isinstance(node, m.Not):
        return Md(f"not {expr(node.operand, False, leaf)}")
    if isinstance(node, m.And | m.Or):
        joiner = " and " if isinstance(node, m.And) else " or "
        inner = joiner.join(expr(o, False, leaf) for o in node.operands)
        return Md(inner if top else f"({inner})")
    parts = ", ".join(expr(o, False, leaf) for o in node.operands)
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
    order = {
        m.Role.REQUIRED: 0,
        m.Role.RULING_OUT: 1,
        m.Role.LIKELY: 2,
        m.Role.SUPPORTING: 3,
        m.Role.POSSIBLE: 4,
    }
    out: dict[str, m.Role] = {}
    for c in case.condition.clauses:
        for name in refs(c.expr):
            if name not in out or order[c.role] < order[out[name]]:
                out[name] = c.role
    return out


def heading(value: str) -> Md:
    """Short case text for headings and list items."""
    return line(value)
