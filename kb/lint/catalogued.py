"""A case that writes its own pattern for a message the catalogue already knows.

The catalogue holds every wording of a message across releases; a case's own regex for the
same line covers the wordings its author saw and stays broken when another release words it
differently. The rule runs each of the case's own `log` patterns over the catalogue's samples:
a pattern that matches a sample should read the fact instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from dsl import model as m
from dsl.catalogue import registry
from dsl.diagnostics import Diagnostic, Severity
from kb.lint.base import Rule
from kb.match.regex import search


class CataloguedMessagePattern(Rule):
    code: ClassVar[str] = "lint/catalogued-message"
    severity: ClassVar[Severity] = Severity.WARNING
    description: ClassVar[str] = (
        "A case's own pattern matches a catalogued message's sample: read the fact by id."
    )

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        catalogue = registry.current()
        samples = [
            (message.id, sample.text)
            for message in catalogue.messages.values()
            for sample in message.samples
        ]
        for q in case.queries:
            if type(q) is not m.LogQuery or q.sources == ["notes"] or q.keeps:
                continue
            hit = sorted(
                {
                    ident
                    for ident, text in samples
                    if search(q.pattern.pattern, text, q.pattern.ignore_case)
                }
            )
            if hit:
                shown = ", ".join(f"`{i}`" for i in hit[:3]) + (" …" if len(hit) > 3 else "")
                yield self.report(
                    q.span,
                    f"`{q.name}` writes its own pattern for a catalogued message ({shown})",
                    help=f"read the fact instead: `evidence {q.name}: message {{ id {hit[0]} }}`"
                    " (with `where [...]` for conditions on its fields)",
                )


class DecisiveMessageNotRead(Rule):
    """The catalogue says a message is decisive for this case (only its cause prints it), so
    the case must read it: otherwise a folder holding that message, and nothing else of the
    case's, names no case at all, though the catalogue knows exactly which one it is."""

    code: ClassVar[str] = "lint/decisive-message-not-read"
    severity: ClassVar[Severity] = Severity.WARNING
    description: ClassVar[str] = (
        "A catalogued message decisive for this case is not read by any of its message queries."
    )

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        from dsl.kinds.message import MessageQuery

        read = {ident for q in case.queries if isinstance(q, MessageQuery) for ident in q.messages}
        unread = sorted(
            message.id
            for message in registry.current().messages.values()
            if message.decisive and case.id in message.causes and message.id not in read
        )
        if unread:
            shown = ", ".join(f"`{i}`" for i in unread[:4]) + (" …" if len(unread) > 4 else "")
            yield self.report(
                case.span,
                f"the catalogue calls {shown} decisive for this case, and the case does not read "
                + ("it" if len(unread) == 1 else "them"),
                help="add the id to the message query that proves the cause (or correct the "
                "message's `causes` in the catalogue if it is not this case's)",
            )
