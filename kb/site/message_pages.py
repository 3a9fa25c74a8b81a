"""One page per catalogue message: what it means, the causes that print it, what to run.

A person holding one line wants, on one screen: the message as printed, what it means
(English and 中文), which causes can print it, ranked, each with the one check that tells it
apart, and the first command. The ranking is stated on the page: a cause the catalogue calls
decisive (it alone prints the message) first, then by how many of the case's stored real
fixtures print the message, then by title. The check is derived from the case, never
written here: the first evidence its `require` (else `likely`) clauses need that can be a
fact of the case itself (not this message, not the user's words), with that evidence's own
collect command, else the case's first verify command.
"""

from __future__ import annotations

from dataclasses import dataclass

from dsl import model as m
from dsl.catalogue import model as cm
from dsl.catalogue.template import as_printed
from dsl.kinds.message import MessageQuery
from kb.lint.ladder import can_tell_apart, family
from kb.match.condition import positive_refs
from kb.site import candidates, casepage, escape, plain
from kb.site.escape import Md

DIAGNOSE = "kb diagnose --evidence ./logs"
RANKING = (
    "Ranked: a cause the catalogue calls decisive (only it prints this message) first, then "
    "by how many of the case's stored real incidents print the message, then by title."
)
ROLE_WORDS = {
    "decisive": "decisive: one known cause prints it",
    "shared": "shared: several causes can print it",
    "context": "context: it describes the setup, not a failure",
}
ROLE_WORDS_ZH = {
    "decisive": "决定性：只有一个已知原因会打印它",
    "shared": "共享：多个原因都可能打印它",
    "context": "背景信息：描述环境，并非故障",
}
CHECK_ROLES = (m.Role.REQUIRED, m.Role.LIKELY)


def slug(message_id: str) -> str:
    return message_id.replace(".", "-")


def message_path(message_id: str) -> str:
    return f"messages/{slug(message_id)}.md"


def shown(w: cm.Wording) -> str:
    """A wording as printed: its format string, else its pattern."""
    if w.template is not None:
        return as_printed(w.template)
    return w.pattern.pattern if w.pattern is not None else ""


def headline(msg: cm.Message) -> str:
    """The wording people meet today: one with no `until` first, else the first."""
    current = [w for w in msg.wordings if not w.until and shown(w)]
    pick = current[0] if current else next((w for w in msg.wordings if shown(w)), None)
    return shown(pick) if pick is not None else msg.id


@dataclass
class Check:
    """The one check that tells a cause apart: what to look for and a command, if any."""

    words: Md
    command: m.CodeBlock | None


@dataclass
class Cause:
    id: str
    case: m.Case | None
    decisive: bool
    printed: int  # stored positive fixtures of the case that print the message
    fixtures: int  # stored positive fixtures of the case
    check: Check | None


def _reads(q: m.Query, message_id: str) -> bool:
    return isinstance(q, MessageQuery) and message_id in q.messages


def tell_apart(case: m.Case, message_id: str, cases: list[m.Case]) -> Check | None:
    """The case's first evidence that can be its own fact and is not this message; else its
    first required evidence that is not this message, though other causes can show it too
    (a rank's CUDA out-of-memory error tells the OOM cascade apart from the other causes of
    a watchdog timeout, even though other causes print it as well)."""
    by_name = {q.name: q for q in case.queries}
    kin = family(case, cases)
    for own in (True, False):
        for role in CHECK_ROLES if own else (m.Role.REQUIRED,):
            for clause in case.condition.clauses:
                if clause.role is not role:
                    continue
                for name, negated in positive_refs(clause.expr):
                    q = by_name.get(name)
                    if q is None or negated or _reads(q, message_id) or q.kind == "said":
                        continue
                    if isinstance(q, m.LogQuery) and "notes" in q.sources:
                        continue
                    if own and not can_tell_apart(q, case, kin):
                        continue
                    command = q.collect[0] if q.collect else _verify(case)
                    return Check(plain.author_or_sentence(q), command)
    command = _verify(case)
    if command is not None:
        return Check(Md("the case's first fix verifies with"), command)
    return None


def _verify(case: m.Case) -> m.CodeBlock | None:
    for r in case.remedies:
        for step in r.steps:
            if step.verify_commands:
                return step.verify_commands[0]
    return None


def causes(
    msg: cm.Message,
    by_id: dict[str, m.Case],
    counts: dict[tuple[str, str], tuple[int, int]],
) -> list[Cause]:
    """The message's causes in the page's order (`RANKING`); a cause no case covers last."""
    named = [c for c in msg.causes if c != cm.UNKNOWN_CAUSE]
    out = []
    cases = list(by_id.values())
    for cid in dict.fromkeys(named):
        case = by_id.get(cid)
        printed, total = counts.get((cid, msg.id), (0, 0))
        decisive = msg.decisive and len(named) == 1
        check = tell_apart(case, msg.id, cases) if case is not None else None
        out.append(Cause(cid, case, decisive, printed, total, check))
    out.sort(
        key=lambda c: (
            not c.decisive,
            c.case is None,
            -c.printed,
            (c.case.title.en.lower() if c.case else c.id),
        )
    )
    return out


def _cause_item(n: int, cause: Cause) -> str:
    """A closed box per cause (`kb.site.candidates`): rank, title and check on its bar."""
    if cause.case is None:
        return f"{n}. {escape.code(cause.id)} (no case page yet)"
    facts = []
    if cause.decisive:
        facts.append("decisive: only this cause prints the message")
    if cause.fixtures:
        facts.append(
            f"printed in {cause.printed} of its {cause.fixtures} stored real incident"
            f"{'s' if cause.fixtures != 1 else ''}"
        )
    body = [str(escape.text(cause.case.summary.en))]
    if facts:
        body += ["", f"*{escape.line('; '.join(facts))}*"]
    check = cause.check.words if cause.check is not None else None
    command = None
    if cause.check is not None and cause.check.command is not None:
        command = casepage.command(cause.check.command)
    return candidates.block(n, cause.case, "../cases/", check, body, command)


def _releases(w: cm.Wording) -> str:
    if w.since and w.until:
        return f"{w.since} to before {w.until}"
    if w.since:
        return f"{w.since} and later"
    if w.until:
        return f"before {w.until}"
    return "releases not recorded"


def _source(value: str) -> Md:
    return escape.link(value, value) if value.startswith("http") else escape.code(value)


def first_command(ranked: list[Cause]) -> str:
    """`kb diagnose` over the logs: it tells the causes apart; one case named, for it."""
    cases = [c for c in ranked if c.case is not None]
    if len(cases) == 1 and cases[0].decisive:
        return f"{DIAGNOSE} --case {cases[0].id}"
    return DIAGNOSE


def page(
    msg: cm.Message,
    by_id: dict[str, m.Case],
    counts: dict[tuple[str, str], tuple[int, int]],
    boost: float,
    one_failure: list[cm.Message] | None = None,
) -> str:
    """The Markdown of one message page. `one_failure`: the messages the catalogue's `after`
    joins to it (printed in the same failure: with it, one fact, not two)."""
    ranked = causes(msg, by_id, counts)
    text = headline(msg)
    # the title is plain text (the header bar, the tab, search results show it as is): a
    # wording's own backticks (accelerate env's "- `Accelerate` default config:") would read
    # as raw markup there, while the heading below shows the wording whole, as code
    plain = " ".join(text.replace("`", "").split())
    title = plain if len(plain) <= 90 else plain[:87] + "…"
    where = f" ({escape.line(msg.component)})" if msg.component else ""
    out = [
        "---",
        f"title: {escape.yaml_str(title)}",
        f"description: {escape.yaml_str(msg.means.en)}",
        "search:",
        f"  boost: {boost}",
        "hide:",
        "  - toc",
        "---",
        "",
        f"# {escape.code(text)}",
        "",
        f"Printed by **{escape.line(msg.emitter)}**{where}, {escape.line(msg.severity)}; "
        f"catalogue id {escape.code(msg.id)}. "
        f"**{escape.line(ROLE_WORDS.get(msg.role, msg.role))}.**",
        "",
    ]
    en = f"**What it means:** {escape.text(msg.means.en)}"
    if msg.means.zh:
        role_zh = ROLE_WORDS_ZH.get(msg.role, "")
        zh = Md(f"**含义：**{escape.text(msg.means.zh)}\n\n**类型：**{escape.line(role_zh)}")
        out += [casepage.bilingual(Md(en), zh), ""]
    else:
        out += [en, ""]
    out += [
        "## First command { #first-command }",
        "",
        escape.fence(first_command(ranked), "bash"),
        "",
        "It reads every rank's logs in `./logs` and names which of the causes below your "
        "evidence shows, with the lines that show it.",
        "",
        "## Causes that can print it { #causes }",
        "",
    ]
    if ranked:
        out += [RANKING, ""]
        for n, c in enumerate(ranked, 1):
            out += [_cause_item(n, c), ""]
    if cm.UNKNOWN_CAUSE in msg.causes:
        out += ["Other causes no case covers yet can print it too.", ""]
    if not msg.causes:
        out += ["The catalogue names no cause for it: it describes, it does not accuse.", ""]
    if msg.fields:
        out += ["## Its fields { #fields }", "", "| field | holds |", "| --- | --- |"]
        out += [f"| {escape.code(k)} | {escape.line(v)} |" for k, v in msg.fields.items()]
        out.append("")
    if one_failure:
        out += [
            "## Printed in the same failure { #same-failure }",
            "",
            f"{escape.line(msg.emitter)} prints these on the same failure path, so together "
            "with this one they count as one fact, not as evidence that confirms it:",
            "",
        ]
        out += [f"- [{escape.code(headline(o))}]({slug(o.id)}.md)" for o in one_failure]
        out.append("")
    out += ["## Every wording { #wordings }", ""]
    for w in msg.wordings:
        source = f"; read from {_source(w.source)}" if w.source else ""
        out.append(f"- {escape.code(shown(w))}: {escape.line(_releases(w))}{source}")
    out.append("")
    if msg.samples:
        out += ["## Real lines { #real-lines }", ""]
    for sample in msg.samples[:3]:
        seen = f" (seen in {_source(sample.origin)})" if sample.origin else ""
        out += [f"A real line{seen}:", "", escape.fence(sample.text), ""]
    out += [f"[Every message printed by {escape.line(msg.emitter)}]({msg.emitter}.md)", ""]
    return "\n".join(out)
