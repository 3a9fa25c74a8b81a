"""Evidence queries and match conditions in plain words.

A person reading a case page should not need to know the case language to see what
`kb` looks for: each query becomes one sentence ("A line matching `…` in the NCCL logs of
exactly one rank"), its kind's one description (dsl/kinds/), which `kb compile --show` and
the report print too. Every piece of case text is escaped here (see `kb.site.escape`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from dsl.choices import Role
from kb.site.escape import Md, code, line

if TYPE_CHECKING:  # the query kinds are imported where a sentence is made: the report's
    # conditions (expr, refs) are read from a warm run's records, without the model
    from dsl import model as m
    from dsl.kinds.base import Phrase


def render(phrase: Phrase) -> Md:
    """A kind's description as Markdown: its words as written, the case's values as code."""
    return Md("".join(p if isinstance(p, str) else code(p.text) for p in phrase))


def regex(value: m.Regex) -> Md:
    """A pattern as inline code, with its flags in words."""
    from dsl.kinds.base import regex_phrase

    return render(regex_phrase(value))


def query(q: m.Query) -> Md:
    """The sentence for one query, generated from its fields (never from free text)."""
    from dsl.kinds import KINDS

    kind = KINDS.get(q.kind)
    if kind is None:
        return Md(f"Evidence of kind {code(q.kind)}")
    return render(kind.describe(q))


def kind_words() -> dict[str, str]:
    """What each kind is about, for the site's kind column (the words live in dsl/kinds/)."""
    from dsl.kinds import KINDS

    return {name: kind.words for name, kind in KINDS.items()}


def expr(node: m.Expr, top: bool = True, leaf: Callable[[str], str] = code) -> Md:
    """A condition expression in words, query names shown as code (or as `leaf` says: the
    report passes each query's own description)."""
    if node.op == "ref":
        return Md(leaf(node.name))
    if node.op == "not":
        return Md(f"not {expr(node.operand, False, leaf)}")
    if node.op == "and" or node.op == "or":
        joiner = " and " if node.op == "and" else " or "
        inner = joiner.join(expr(o, False, leaf) for o in node.operands)
        return Md(inner if top else f"({inner})")
    parts = ", ".join(expr(o, False, leaf) for o in node.operands)
    return Md(f"at least {node.count} of {parts}")


ROLE_WORDS: dict[Role, str] = {
    Role.REQUIRED: "Must hold",
    Role.SUPPORTING: "Makes it more likely",
    Role.RULING_OUT: "Rules the case out",
    Role.LIKELY: "Makes it likely (without proof)",
    Role.POSSIBLE: "Makes it possible",
}


def clause(c: m.Clause) -> Md:
    """One `require`/`support`/`rule_out` clause as a list item."""
    weight = f" (weight {c.weight:g})" if c.weight != 1.0 else ""
    return Md(f"**{ROLE_WORDS[c.role]}**{weight}: {expr(c.expr)}")


def refs(node: m.Expr) -> set[str]:
    """Names of the queries an expression mentions."""
    if node.op == "ref":
        return {node.name}
    if node.op == "not":
        return refs(node.operand)
    out: set[str] = set()
    for o in node.operands:
        out |= refs(o)
    return out


def roles(case: m.Case) -> dict[str, Role]:
    """The strongest role each query plays in the condition (require > rule_out > support)."""
    order = {
        Role.REQUIRED: 0,
        Role.RULING_OUT: 1,
        Role.LIKELY: 2,
        Role.SUPPORTING: 3,
        Role.POSSIBLE: 4,
    }
    out: dict[str, Role] = {}
    for c in case.condition.clauses:
        for name in refs(c.expr):
            if name not in out or order[c.role] < order[out[name]]:
                out[name] = c.role
    return out


def heading(value: str) -> Md:
    """Short case text for headings and list items."""
    return line(value)
