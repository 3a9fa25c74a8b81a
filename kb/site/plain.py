"""What a query looks for, in words a reader needs no regex for.

`kb.site.describe` words each query from its fields but shows patterns as code; here a
pattern is shown as the message it finds (`kb.site.messages`), its variable parts marked.
The case author's own `describe` text comes first when there is one.
"""

from __future__ import annotations

from dsl import model as m
from dsl.kinds.log import SOURCE_WORDS
from kb.site import describe, escape, messages
from kb.site.escape import Md

PLACEHOLDER = '<span class="kb-var">{}</span>'

# Rank scopes in the site's shorter words; sources in the language's own (dsl.kinds.log).
SCOPE_WORDS: dict[m.Scope, str] = {
    m.Scope.ALL: "of every rank",
    m.Scope.ONE: "of exactly one rank",
    m.Scope.ALL_BUT_ONE: "of every rank but one",
}


def message_md(message: messages.Message) -> Md:
    """A message as inline Markdown: literal text as code, placeholders marked."""
    out = []
    for part in message:
        if part.variable:
            out.append(PLACEHOLDER.format("…" if part.text == "…" else part.text))
            continue
        text = part.text
        lead = " " if text[:1].isspace() else ""
        tail = " " if text[-1:].isspace() and text.strip() else ""
        out.append(lead + (escape.code(text.strip()) if text.strip() else "") + tail)
    return Md('<span class="kb-msg">' + "".join(out) + "</span>")


def pattern_md(value: m.Regex, limit: int = 3) -> Md:
    """A pattern as one or more messages: "‹a›, ‹b› or ‹c›"."""
    found = messages.messages(value.pattern)[:limit]
    if not found:
        return Md("a line of the kind the case file shows")
    shown = [message_md(x) for x in found]
    if len(shown) == 1:
        return shown[0]
    return Md(", ".join(shown[:-1]) + " or " + shown[-1])


def _sources(names: list[str]) -> str:
    words = [SOURCE_WORDS.get(n) or f"{escape.code(n)} evidence" for n in names]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _where(q: m.LogQuery) -> str:
    if "notes" in q.sources:
        return "in the reporter's own description"
    place = f"in the {_sources(q.sources)}" if q.sources else "in the logs"
    if q.scope is m.Scope.RANK:
        return f"{place} of rank {q.rank}"
    if q.scope is m.Scope.ANY:
        return place
    return f"{place} {SCOPE_WORDS.get(q.scope, '')}".rstrip()


def sentence(q: m.Query) -> Md:
    """One sentence for the query, from its fields."""
    if isinstance(q, m.LogQuery):
        return Md(f"a line like {pattern_md(q.pattern)} {_where(q)}")
    if isinstance(q, m.StackQuery):
        return Md(f"a stack frame like {pattern_md(q.frame)}")
    if isinstance(q, m.HardwareQuery) and q.model is not None:
        device = {"gpu": "GPU", "npu": "NPU", "any": "GPU or NPU"}[q.device]
        return Md(f"a {device} like {pattern_md(q.model)}")
    if isinstance(q, m.EnvQuery) and q.regex is not None:
        return Md(
            f"the environment variable {escape.code(q.variable)} set to a value like "
            f"{pattern_md(q.regex)}"
        )
    if isinstance(q, m.SourceQuery) and q.call is not None:
        return Md(f"the training script calls something like {pattern_md(q.call)}")
    text = describe.query(q)
    return Md(text[:1].lower() + text[1:])


def author_or_sentence(q: m.Query) -> Md:
    """The author's description of the query when it has one, else the generated sentence."""
    if q.description is not None and q.description.en:
        return escape.line(q.description.en)
    return sentence(q)
