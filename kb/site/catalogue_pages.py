"""The catalogue on the site: one page per emitter, one section per message.

Each message shows what it means (English and Chinese), whether it names one cause or is
shared, the cases that can print it (linked), its fields, every wording with the releases
that print it and where it was read, and real samples. Every value is escaped here.
"""

from __future__ import annotations

from collections import defaultdict

from dsl import model as m
from dsl.catalogue import model as cm
from kb.site import escape
from kb.site.escape import Md

INDEX = "messages/index.md"
# Search weight of a message section against the rest of the site (Material's page boost):
# a pasted line shares its words with many case pages, and the section holding that very
# message, with its wordings and real samples, must come first.
SEARCH_BOOST = 10
ROLE_WORDS = {
    "decisive": "decisive: one known cause prints it",
    "shared": "shared: several causes can print it",
    "context": "context: it describes the setup, not a failure",
}


def emitter_path(emitter: str) -> str:
    return f"messages/{emitter}.md"


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


def _cause(cause: str, cases: dict[str, m.Case]) -> Md:
    case = cases.get(cause)
    if case is None:
        return Md("a cause no case covers yet" if cause == cm.UNKNOWN_CAUSE else escape.code(cause))
    return Md(f"[{escape.line(case.title.en)}](../cases/{case.id}.md)")


def message_section(msg: cm.Message, cases: dict[str, m.Case]) -> Md:
    """One message: its meaning, role, causes, fields, wordings and samples."""
    out = [f"## {escape.code(msg.id)} {{ #{msg.id.replace('.', '-')} }}", ""]
    where = f" ({escape.line(msg.component)})" if msg.component else ""
    out.append(
        f"{escape.line(msg.emitter)}{where}, {escape.line(msg.severity)}. {escape.text(msg.means.en)}"
    )
    out.append("")
    if msg.means.zh:
        out += [f"中文：{escape.text(msg.means.zh)}", ""]
    out.append(f"**Role:** {escape.line(ROLE_WORDS.get(msg.role, msg.role))}.")
    out.append("")
    if msg.causes:
        out.append(
            "**Can be printed by:** " + "; ".join(_cause(c, cases) for c in msg.causes) + "."
        )
        out.append("")
    if msg.fields:
        out += ["| field | holds |", "| --- | --- |"]
        out += [f"| {escape.code(k)} | {escape.line(v)} |" for k, v in msg.fields.items()]
        out.append("")
    out += ["**Wordings**, as the emitter prints them across releases:", ""]
    for w in msg.wordings:
        shown = w.template if w.template is not None else (w.pattern.pattern if w.pattern else "")
        source = f"; read from {_source(w.source)}" if w.source else ""
        out.append(f"- {escape.code(shown)}: {escape.line(_releases(w))}{source}")
    out.append("")
    for sample in msg.samples[:3]:
        seen = f" (seen in {_source(sample.origin)})" if sample.origin else ""
        out += [f"A real line{seen}:", "", escape.fence(sample.text), ""]
    return Md("\n".join(out))


def catalogue_pages(catalogue: cm.Catalogue, cases: list[m.Case]) -> dict[str, str]:
    """{docs path: Markdown}: the index and one page per emitter."""
    if not catalogue.messages:
        return {}
    by_id = {c.id: c for c in cases}
    by_emitter: dict[str, list[cm.Message]] = defaultdict(list)
    for msg in catalogue.messages.values():
        by_emitter[msg.emitter].append(msg)
    pages: dict[str, str] = {}
    index = [
        "---",
        "title: Messages",
        "description: Every decisive message the cases read, by the tool that prints it",
        "---",
        "",
        "# Messages, by the tool that prints them",
        "",
        "What each message means as its emitter's source defines it, every wording across the "
        "releases people still run, and the causes that can print it.",
        "",
    ]
    for emitter in sorted(by_emitter):
        messages = sorted(by_emitter[emitter], key=lambda x: x.id)
        index.append(f"- [{escape.line(emitter)}]({emitter}.md): {len(messages)} messages")
        body = [
            "---",
            f"title: {escape.yaml_str(f'Messages printed by {emitter}')}",
            f"description: {escape.yaml_str(f'What each {emitter} message means and which causes print it')}",
            "search:",
            f"  boost: {SEARCH_BOOST}",
            "---",
            "",
            f"# Messages printed by {escape.line(emitter)}",
            "",
        ]
        body += [message_section(msg, by_id) for msg in messages]
        pages[emitter_path(emitter)] = "\n".join(body) + "\n"
    pages[INDEX] = "\n".join(index) + "\n"
    return pages
