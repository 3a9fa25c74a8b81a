"""The catalogue's messages for the pasted-line matcher: a shared message names its causes.

A pasted line that holds a message several causes print proves none of them; the matcher
says so ("can be printed by: A, B, C", ranked as the message's page ranks them) instead of
"this line matches the case". Only messages that name at least one case and are not mere
context are shipped, each as the one pattern and shared literal `kb diagnose` reads
(`dsl.catalogue.index`), kept only when the browser's backtracking engine runs it safely.
"""

from __future__ import annotations

from dsl import model as m
from dsl.catalogue import model as cm
from dsl.catalogue.index import message_index
from kb.site import message_pages, paste


def data(
    catalogue: cm.Catalogue,
    cases: list[m.Case],
    counts: dict[tuple[str, str], tuple[int, int]],
) -> list[dict[str, object]]:
    """One entry per message a pasted line can be matched against."""
    by_id = {c.id: c for c in cases}
    patterns = {e.id: e for e in message_index().messages}
    out: list[dict[str, object]] = []
    for msg in sorted(catalogue.messages.values(), key=lambda x: x.id):
        entry = patterns.get(msg.id)
        if entry is None or msg.role == "context" or len(entry.pattern) > paste.MAX_PATTERN:
            continue
        ranked = [c for c in message_pages.causes(msg, by_id, counts) if c.case is not None]
        if not ranked or not paste.browser_safe(entry.pattern):
            continue
        others = any(c not in by_id for c in msg.causes)
        out.append(
            {
                "id": msg.id,
                "text": message_pages.headline(msg)[:160],
                "decisive": bool(ranked[0].decisive),
                "causes": [c.id for c in ranked],  # titles come with the cases' own data
                "others": others,
                "pattern": paste.javascript_source(entry.pattern),
                "literal": entry.literal,
            }
        )
    return out
