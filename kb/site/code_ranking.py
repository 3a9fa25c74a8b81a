"""An error code's page, ranked by the catalogue: which messages carry the code, and which of
its candidate cases is most likely yours.

A person with `EI0002` or `Watchdog caught collective operation timeout` gets the catalogue's
message pages that print it, then the cases, ranked as a message page ranks its causes: a
case the catalogue names as the only cause of one of those messages first, then by how many
of the case's stored real incidents print one of them, then by how many of those messages
name it, then by title. Each case carries the one check that tells it apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from dsl import model as m
from dsl.catalogue import model as cm
from kb.site import codes, message_pages
from kb.site.message_pages import Check

RANKING = (
    "Ranked by the catalogue: a case that alone prints one of these messages first, then by "
    "how many of its stored real incidents print one, then by how many of them name it."
)


def messages_for(code: codes.Code, catalogue: cm.Catalogue) -> list[cm.Message]:
    """Catalogue messages that print the code: in a wording, a real sample or the id."""
    name = code.name.lower()
    out = []
    for msg in catalogue.messages.values():
        texts = [message_pages.shown(w) for w in msg.wordings] + [s.text for s in msg.samples]
        if code.slug in message_pages.slug(msg.id).lower() or any(name in t.lower() for t in texts):
            out.append(msg)
    return sorted(out, key=lambda x: (x.role != "decisive", x.role == "context", x.id))


@dataclass
class Candidate:
    case: m.Case
    decisive: bool
    printed: int
    fixtures: int
    naming: int  # of the code's messages, how many name the case as a cause
    check: Check | None


def candidates(
    code: codes.Code,
    messages: list[cm.Message],
    by_id: dict[str, m.Case],
    counts: dict[tuple[str, str], tuple[int, int]],
) -> list[Candidate]:
    """The code's cases in the page's order (`RANKING`)."""
    cases = list(by_id.values())
    out = []
    for case in code.cases:
        naming = [msg for msg in messages if case.id in msg.causes]
        decisive = any(
            msg.decisive and [c for c in msg.causes if c != cm.UNKNOWN_CAUSE] == [case.id]
            for msg in naming
        )
        seen = [counts.get((case.id, msg.id), (0, 0)) for msg in naming]
        printed = max((p for p, _t in seen), default=0)
        total = max((t for _p, t in seen), default=0)
        first = naming[0].id if naming else ""
        check = message_pages.tell_apart(case, first, cases)
        out.append(Candidate(case, decisive, printed, total, len(naming), check))
    out.sort(key=lambda c: (not c.decisive, -c.printed, -c.naming, c.case.title.en.lower()))
    return out
