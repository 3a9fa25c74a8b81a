"""Catalogue declarations (parsed as blocks) -> typed messages, words and regressions.

Reuses the case lowerer's field checking, so an unknown name gets the same "did you mean"
and a value of the wrong kind the same "takes a …, not a …" as in a case.
"""

from __future__ import annotations

from typing import Any

from dsl import syntax as s
from dsl.catalogue import model as cm
from dsl.catalogue.template import TemplateError, field_names, parse_template
from dsl.fields import REGEX, STRINGS, TEXT, WORD, WORDS, BlockSpec, Field
from dsl.lower import Lowerer
from dsl.values import Regex

ID_SHAPE = "lowercase words joined by `-`, parts joined by `.`: `nccl.net-ib.completion-error`"

MESSAGE = BlockSpec(
    "message",
    "A line an emitter prints: what it means, every wording with its releases, its causes.",
    label=WORD,
    label_doc="the message's id",
    fields=(
        Field("emitter", WORD, "Who prints it.", choices=cm.EMITTERS),
        Field("component", TEXT, "The emitter's subsystem: NET/IB, ProcessGroupNCCL…"),
        Field("severity", WORD, "How the emitter ranks it.", choices=cm.SEVERITIES),
        Field("means", TEXT, "What it means, as the emitter's source defines it.", True),
        Field("role", WORD, "decisive (one cause), shared or context.", choices=cm.ROLES),
        Field("causes", WORDS, "Case ids that can print it; `unknown` for causes no case has."),
        Field("see", STRINGS, "Documentation of the message (URLs)."),
        Field(
            "after",
            WORDS,
            "Messages the same emitter prints on its way to this one, in one failure (the "
            "call whose error it reports, an earlier line of the same warning): together "
            "they are one fact, never two.",
        ),
    ),
    blocks=("fields", "wording", "sample"),
)
WORDING = BlockSpec(
    "wording",
    "One wording, as a template with named fields, and the releases that print it.",
    label=TEXT,
    label_doc="template",
    fields=(
        Field("pattern", REGEX, "An explicit regex (named groups are fields) instead of a label."),
        Field("since", TEXT, "First release that prints this wording."),
        Field("until", TEXT, "First release that no longer prints it (exclusive)."),
        Field("source", TEXT, "`path:line@tag` in the emitter's source, or a documentation URL."),
    ),
)
SAMPLE = BlockSpec(
    "sample",
    "A real line as printed.",
    label=TEXT,
    label_doc="line",
    fields=(Field("from", TEXT, "Where it was seen: a report URL or a fixture file:line."),),
)
WORDS_SPEC = BlockSpec(
    "words",
    "One idea users say in their own words.",
    label=WORD,
    label_doc="the idea's id",
    fields=(
        Field("means", TEXT, "The idea.", True),
        Field("sample", TEXT, "A phrasing it must match.", repeatable=True),
        Field("unlike", TEXT, "Prose it must not match (a counter-example).", repeatable=True),
    ),
)
REGRESSION = BlockSpec(
    "regression",
    "A release known to break something.",
    label=WORD,
    label_doc="the regression's id",
    fields=(
        Field("component", WORD, "The package, as pip or the vendor names it: nccl, torch…"),
        Field("affected", TEXT, 'Affected releases: ">=2.19.0,<2.19.4".'),
        Field("fixed_in", TEXT, "The release that fixed it."),
        Field("means", TEXT, "What breaks.", True),
        Field("signature", WORDS, "Catalogue message ids that show it."),
        Field("source", TEXT, "The release note or fixing commit (URL)."),
    ),
)
DECLARATIONS: dict[str, BlockSpec] = {
    "message": MESSAGE,
    "words": WORDS_SPEC,
    "regression": REGRESSION,
}


class CatalogueLowerer(Lowerer):
    """Lowers the declarations of one file; problems collect in `diagnostics`."""

    def declaration(self, block: s.BlockNode) -> Any:
        spec = DECLARATIONS.get(block.name)
        if spec is None:
            self.error(
                block.span,
                f"`{block.name}` is not a catalogue declaration",
                "unknown-declaration",
                help=f"a catalogue file holds: {', '.join(DECLARATIONS)} (`message ID {{ … }}`)",
            )
            return None
        ident = self._id(block)
        if ident is None:
            return None
        if block.name == "message":
            return self.message(block, ident)
        if block.name == "words":
            return self.words(block, ident)
        return self.regression(block, ident)

    def _id(self, block: s.BlockNode) -> str | None:
        label = block.label
        if not isinstance(label, s.WordValue | s.StringValue):
            self.error(block.span, f"`{block.name}` needs an id: {ID_SHAPE}", "missing-label")
            return None
        ident = label.value
        parts = ident.split(".")
        if not all(p and p.replace("-", "").isalnum() and p == p.lower() for p in parts):
            self.error(label.span, f"`{ident}` is not an id: {ID_SHAPE}", "bad-id")
            return None
        return ident

    def _need(self, values: dict[str, Any], names: tuple[str, ...], block: s.BlockNode) -> bool:
        missing = [n for n in names if values.get(n) is None]
        for name in missing:
            self.error(block.span, f"`{block.name}` needs `{name}`", "missing-field")
        return not missing

    def message(self, block: s.BlockNode, ident: str) -> cm.Message | None:
        where = f"message `{ident}`"
        values, blocks = self.fields(block.items, MESSAGE, MESSAGE.fields, where)
        fields: dict[str, str] = {}
        wordings: list[cm.Wording] = []
        samples: list[cm.Sample] = []
        for inner in blocks:
            if inner.name == "fields":
                fields.update(self._field_docs(inner))
            elif inner.name == "wording":
                wording = self.wording(inner, where)
                if wording is not None:
                    wordings.append(wording)
            else:
                sample = self.sample(inner, where)
                if sample is not None:
                    samples.append(sample)
        if not wordings:
            self.error(block.span, f"{where} needs at least one `wording`", "missing-field")
        if not self._need(values, ("emitter", "means", "role"), block) or not wordings:
            return None
        means = self.text(values, "means", block.span)
        assert means is not None
        return cm.Message(
            id=ident,
            emitter=values["emitter"],
            component=values.get("component") or "",
            severity=values.get("severity") or "error",
            means=means,
            role=values["role"],
            causes=values.get("causes") or [],
            fields=fields,
            wordings=wordings,
            samples=samples,
            see=values.get("see") or [],
            after=values.get("after") or [],
            span=block.span,
        )

    def _field_docs(self, block: s.BlockNode) -> dict[str, str]:
        self.no_label(block)
        docs: dict[str, str] = {}
        for item in block.items:
            if isinstance(item, s.AttributeNode) and isinstance(
                item.value, s.StringValue | s.TextBlockValue
            ):
                docs[item.name] = item.value.value
            else:
                self.error(
                    item.span,
                    'each line of `fields` is a field name and what it holds: `status "…"`',
                    "bad-value",
                )
        return docs

    def wording(self, block: s.BlockNode, where: str) -> cm.Wording | None:
        values, _ = self.fields(block.items, WORDING, WORDING.fields, f"a wording of {where}")
        label = block.label
        pattern: Regex | None = values.get("pattern")
        if label is not None and pattern is not None:
            self.error(block.span, "a wording is a template or a `pattern`, not both", "bad-value")
            return None
        if label is None and pattern is None:
            self.error(
                block.span,
                'a wording needs its template: `wording "Got completion from peer {peer}…" { … }`',
                "missing-label",
            )
            return None
        common = {
            "since": values.get("since"),
            "until": values.get("until"),
            "source": values.get("source") or "",
            "span": block.span,
        }
        if pattern is not None:
            return cm.Wording(
                pattern=pattern,
                regex=pattern.pattern,
                fields=field_names(pattern.pattern),
                **common,
            )
        if not isinstance(label, s.StringValue | s.TextBlockValue):
            self.error(block.span, "a wording's template is a string", "bad-value")
            return None
        try:
            template = parse_template(label.value)
        except TemplateError as err:
            self.error(label.span, f"bad template: {err}", "bad-template")
            return None
        return cm.Wording(
            template=label.value,
            regex=template.regex,
            required=template.required,
            fields=list(template.fields),
            **common,
        )

    def sample(self, block: s.BlockNode, where: str) -> cm.Sample | None:
        values, _ = self.fields(block.items, SAMPLE, SAMPLE.fields, f"a sample of {where}")
        if not isinstance(block.label, s.StringValue | s.TextBlockValue):
            self.error(block.span, 'a sample is the line as printed: `sample "…"`', "bad-value")
            return None
        return cm.Sample(text=block.label.value, origin=values.get("from") or "", span=block.span)

    def words(self, block: s.BlockNode, ident: str) -> cm.Words | None:
        where = f"words `{ident}`"
        phrasings: dict[str, list[Regex]] = {"en": [], "zh": []}
        rest: list[s.Item] = []
        for item in block.items:
            if isinstance(item, s.AttributeNode) and item.name in phrasings:
                phrasings[item.name] = self._regex_list(item, where)
            else:
                rest.append(item)
        values, _ = self.fields(rest, WORDS_SPEC, WORDS_SPEC.fields, where)
        if not phrasings["en"] and not phrasings["zh"]:
            self.error(block.span, f"{where} needs `en [/…/]` or `zh [/…/]`", "missing-field")
            return None
        if not self._need(values, ("means",), block):
            return None
        means = self.text(values, "means", block.span)
        assert means is not None
        return cm.Words(
            id=ident,
            means=means,
            en=phrasings["en"],
            zh=phrasings["zh"],
            samples=[v for v in values.get("sample") or [] if v],
            unlike=[v for v in values.get("unlike") or [] if v],
            span=block.span,
        )

    def _regex_list(self, item: s.AttributeNode, where: str) -> list[Regex]:
        raw = item.value.items if isinstance(item.value, s.ListValue) else [item.value]
        out: list[Regex] = []
        for value in raw:
            if isinstance(value, s.RegexValue):
                out.append(Regex(pattern=value.pattern, flags=value.flags, span=value.span))
            else:
                self.error(
                    value.span, f"`{item.name}` in {where} is a list of /regexes/", "bad-value"
                )
        return out

    def regression(self, block: s.BlockNode, ident: str) -> cm.Regression | None:
        where = f"regression `{ident}`"
        values, _ = self.fields(block.items, REGRESSION, REGRESSION.fields, where)
        if not self._need(values, ("component", "affected", "means"), block):
            return None
        means = self.text(values, "means", block.span)
        assert means is not None
        return cm.Regression(
            id=ident,
            component=values["component"],
            affected=values["affected"],
            fixed_in=values.get("fixed_in"),
            means=means,
            signature=values.get("signature") or [],
            source=values.get("source") or "",
            span=block.span,
        )
