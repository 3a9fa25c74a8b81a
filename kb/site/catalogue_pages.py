"""The catalogue on the site: an index, one list per emitter, one page per message.

Each message has a page of its own (`kb.site.message_pages`): what it means, the causes that
print it, ranked, with the check that tells each apart, the first command, every wording with
its releases and real samples. An emitter's page lists its messages, linked. Message pages are
left out of the navigation (nearly a thousand entries on every page); the lists reach them.
"""

from __future__ import annotations

from collections import defaultdict

from dsl import model as m
from dsl.catalogue import model as cm
from kb.site import escape, fixture_messages, message_pages
from kb.site.message_pages import ROLE_WORDS, headline, message_path, slug

INDEX = "messages/index.md"
# Search weight of a message section against the rest of the site (Material's page boost):
# a pasted line shares its words with many case pages, and the section holding that very
# message, with its wordings and real samples, must come first.
SEARCH_BOOST = 10
__all__ = ["ROLE_WORDS", "catalogue_pages", "emitter_path", "message_path"]


def emitter_path(emitter: str) -> str:
    return f"messages/{emitter}.md"


def message_page_paths(catalogue: cm.Catalogue) -> set[str]:
    """The docs paths of the message pages (left out of the navigation)."""
    return {message_path(i) for i in catalogue.messages}


def _item(msg: cm.Message) -> str:
    text = headline(msg)
    short = text if len(text) <= 100 else text[:97] + "…"
    named = [c for c in msg.causes if c != cm.UNKNOWN_CAUSE]
    causes = f"; {len(named)} case{'s' if len(named) != 1 else ''}" if named else ""
    return (
        f"- [{escape.code(short)}]({slug(msg.id)}.md): {escape.line(msg.role)}{causes}"
        f" ({escape.code(msg.id)})"
    )


def catalogue_pages(
    catalogue: cm.Catalogue,
    cases: list[m.Case],
    counts: dict[tuple[str, str], tuple[int, int]] | None = None,
) -> dict[str, str]:
    """{docs path: Markdown}: the index, one list per emitter and one page per message.
    `counts` (`kb.site.fixture_messages.counts`) is computed here when not given."""
    if not catalogue.messages:
        return {}
    by_id = {c.id: c for c in cases}
    if counts is None:
        counts = fixture_messages.counts(cases)
    by_emitter: dict[str, list[cm.Message]] = defaultdict(list)
    one_failure: dict[str, list[cm.Message]] = defaultdict(list)  # both ends of each `after`
    for msg in catalogue.messages.values():
        by_emitter[msg.emitter].append(msg)
        for other_id in msg.after:
            other = catalogue.messages.get(other_id)
            if other is not None:
                one_failure[msg.id].append(other)
                one_failure[other_id].append(msg)
    pages: dict[str, str] = {}
    index = [
        "---",
        "title: Messages",
        "description: Every message the catalogue knows, by the tool that prints it",
        "---",
        "",
        "# Messages, by the tool that prints them",
        "",
        "Each message has a page: what it means, the causes that can print it (ranked, each "
        "with the check that tells it apart), the first command to run, every wording across "
        "the releases people still run, and real lines. Paste a line into the search box to "
        "land on its page.",
        "",
    ]
    for emitter in sorted(by_emitter):
        messages = sorted(by_emitter[emitter], key=lambda x: x.id)
        index.append(f"- [{escape.line(emitter)}]({emitter}.md): {len(messages)} messages")
        body = [
            "---",
            f"title: {escape.yaml_str(f'Messages printed by {emitter}')}",
            f"description: {escape.yaml_str(f'What each {emitter} message means and which causes print it')}",
            "---",
            "",
            f"# Messages printed by {escape.line(emitter)}",
            "",
            "Each links to its page: what it means, the causes that print it and what to run.",
            "",
        ]
        body += [_item(msg) for msg in messages]
        pages[emitter_path(emitter)] = "\n".join(body) + "\n"
        for msg in messages:
            path = message_path(msg.id)
            if path in pages or slug(msg.id) in by_emitter:
                raise ValueError(f"message page {path} collides with another page")
            pages[path] = message_pages.page(
                msg, by_id, counts, SEARCH_BOOST, sorted(one_failure[msg.id], key=lambda x: x.id)
            )
    pages[INDEX] = "\n".join(index) + "\n"
    return pages
