"""`message`: a line the catalogue knows, read by id, with conditions on its fields.

    evidence retry_exceeded: message {
      id nccl.net-ib.completion-error
      where ["status=12"]
    }

The case names the fact, not its wording: lowering takes every wording the catalogue holds
for the message (all releases), puts each condition's values in place of its field, and
hands the scanner one pattern, so a wording fixed in the catalogue is fixed for every case.
The query is then a `log` query in all else (scope, counts, files, sources).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field as ModelField

from dsl.catalogue import registry
from dsl.catalogue.template import TemplateError, with_values
from dsl.diagnostics import Diagnostic, did_you_mean
from dsl.fields import STRINGS, WORDS, Field
from dsl.kinds import log
from dsl.kinds.base import Code, Lowering, Phrase, QueryKind, Scope
from dsl.span import Node
from dsl.values import Regex

if TYPE_CHECKING:  # annotations only: a warm `kb diagnose` needs no syntax tree
    from dsl import syntax as s

_CONDITION = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.+?)\s*$")


class MessageSignal(Node):
    """What the catalogue says of one message a query reads, kept with the compiled query so
    the judgement can tell which message a matched line is and how much it proves (the
    confidence ladder) without loading the catalogue."""

    id: str
    role: str  # decisive | shared | context
    causes: list[str] = ModelField(default_factory=list)
    pattern: str = ""  # its wordings as one regex (the query's conditions in place)


class MessageQuery(log.LogQuery):
    kind: Literal["message"] = "message"  # type: ignore[assignment]
    messages: list[str]
    where: dict[str, list[str]] = ModelField(default_factory=dict)
    means: str = ""  # the first message's meaning, for the sentence that describes the query
    signals: list[MessageSignal] = ModelField(default_factory=list)


FIELDS = (
    Field("id", WORDS, "The catalogue message(s) to find: one id or a list `[a, b]`."),
    Field(
        "where",
        STRINGS,
        'Conditions on the message\'s fields: ["status=12", "signal=9|15"] ("|" = any of).',
    ),
    *(f for f in log.FIELDS if f.name not in ("pattern", "keeps")),
)


def parse_conditions(raw: list[str]) -> tuple[dict[str, list[str]], list[str]]:
    """`["status=12|5"]` -> {"status": ["12", "5"]}, and the conditions that are malformed."""
    out: dict[str, list[str]] = {}
    bad: list[str] = []
    for text in raw:
        found = _CONDITION.match(text)
        if found is None:
            bad.append(text)
            continue
        values = [v.strip() for v in found.group(2).split("|") if v.strip()]
        if not values:
            bad.append(text)
            continue
        out.setdefault(found.group(1), []).extend(values)
    return out, bad


def _ungrouped(regex: str) -> str:
    """Named groups as plain groups: alternatives of several wordings share field names."""
    return re.sub(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>", "(?:", regex)


def lower(
    node: s.EvidenceNode, v: dict[str, Any], common: dict[str, Any], lowering: Lowering
) -> MessageQuery | None:
    catalogue = registry.current()
    where, bad = parse_conditions(v.get("where", []))
    for text in bad:
        lowering.error(
            node.span,
            f"`{node.name}`: `{text}` is not a condition",
            "bad-value",
            help='write `field=value` or `field=a|b`: where ["status=12"]',
        )
    alternatives: list[str] = []
    signals: list[MessageSignal] = []
    means = ""
    for ident in v["id"]:
        message = catalogue.messages.get(ident)
        if message is None:
            lowering.error(
                node.span,
                f"`{node.name}`: the catalogue has no message `{ident}`",
                "unknown-message",
                help=did_you_mean(ident, catalogue.messages) or "see catalogue/messages/",
            )
            continue
        means = means or message.means.en
        fields = set(message.field_names())
        for name in where:
            if name not in fields:
                lowering.error(
                    node.span,
                    f"`{node.name}`: the message `{ident}` has no field `{name}`",
                    "unknown-field",
                    help=did_you_mean(name, fields) or f"its fields: {', '.join(sorted(fields))}",
                )
        usable = [w for w in message.wordings if set(where) <= set(w.fields)]
        own: list[str] = []
        for wording in usable:
            try:
                own.append(_ungrouped(with_values(wording.regex, where)))
            except TemplateError as err:
                lowering.error(node.span, f"`{node.name}`: {err}", "bad-template")
        alternatives += own
        own = list(dict.fromkeys(own))
        signals.append(
            MessageSignal(
                id=ident,
                role=message.role,
                causes=list(message.causes),
                pattern="|".join(f"(?:{a})" for a in own),
            )
        )
    if not alternatives:
        return None
    unique = list(dict.fromkeys(alternatives))
    pattern = unique[0] if len(unique) == 1 else "|".join(f"(?:{a})" for a in unique)
    return MessageQuery(
        pattern=Regex(pattern=pattern, span=node.span),
        messages=list(v["id"]),
        where=where,
        means=means,
        signals=signals,
        files=v.get("files", []),
        sources=v.get("sources", []),
        scope=Scope(v.get("scope", "any")),
        rank=v.get("rank"),
        min_count=v.get("min_count", 1),
        max_count=v.get("max_count"),
        **common,
    )


def check(q: MessageQuery) -> Iterator[Diagnostic]:
    yield from log.check(q)


def describe(q: MessageQuery) -> Phrase:
    ids: list[str | Code] = []
    for i, ident in enumerate(q.messages):
        ids += [" or "] * bool(i) + [Code(ident)]
    conditions: list[str | Code] = []
    for i, (name, values) in enumerate(q.where.items()):
        conditions += [", " if i else " with ", name, " "]
        conditions += [Code(" or ".join(values))]
    return (log._count(q), " of the message ", *ids, *conditions, " ", *log._where(q))


KIND = QueryKind(
    name="message",
    model=MessageQuery,
    fields=FIELDS,
    required=("id",),
    lower=lower,
    describe=describe,
    check=check,
    words="catalogued message",
)
