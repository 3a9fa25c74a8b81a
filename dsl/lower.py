"""Syntax tree -> semantic model, collecting every problem instead of stopping at the first.

Each statement is checked against `dsl.schema`: unknown names get a "did you mean",
values of the wrong kind say what was expected. A case with errors still lowers as far
as it can so later checks can report their problems in the same run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dsl import model as m
from dsl import schema as sc
from dsl import syntax as s
from dsl.diagnostics import Diagnostic
from dsl.kinds import KINDS
from dsl.lower_values import (
    MAX_WEIGHT,
    _suggest,
    convert_value,
    number_problem,
)
from dsl.span import Span


class Lowerer:
    """Lowers one case file; `diagnostics` holds everything found on the way."""

    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []

    def error(self, span: Span, message: str, code: str, help: str | None = None) -> None:
        self.diagnostics.append(Diagnostic.at(span, message, code=code, help=help))

    # ------------------------------------------------------------------ values
    def convert(self, value: s.Value, f: sc.Field, where: str) -> Any:
        """The Python value of `value` as field `f` wants it, or None after an error."""
        return convert_value(value, f, where, self.error)

    # ------------------------------------------------------------------ statements
    def fields(
        self,
        items: Sequence[s.Item],
        spec: sc.BlockSpec,
        fields: tuple[sc.Field, ...],
        where: str,
    ) -> tuple[dict[str, Any], list[s.BlockNode]]:
        """Attribute values by name (repeatable ones as lists) and the nested blocks."""
        known = {f.name: f for f in fields}
        for twin in fields:
            if twin.translatable:
                known[f"{twin.name}.zh"] = sc.Field(f"{twin.name}.zh", twin.kind, twin.doc)
        values: dict[str, Any] = {}
        seen: dict[str, Span] = {}
        blocks: list[s.BlockNode] = []
        for item in items:
            if isinstance(item, s.AttributeNode):
                f = known.get(item.name)
                if f is None and item.name in spec.blocks:
                    self.error(
                        item.span,
                        f"`{item.name}` is a block here: `{item.name} {{ ... }}`",
                        "unknown-field",
                    )
                    continue
                if f is None:
                    options = list(known) + list(spec.blocks)
                    hint = _suggest(item.name, options)
                    allowed = ", ".join(options) or "nothing"
                    self.error(
                        item.span,
                        f"unknown field `{item.name}` in {where}",
                        "unknown-field",
                        help=hint or f"{where} takes: {allowed}",
                    )
                    continue
                converted = self.convert(item.value, f, where)
                if f.repeatable:
                    values.setdefault(item.name, []).append(converted)
                    continue
                if item.name in seen:
                    first = seen[item.name]
                    self.error(
                        item.span,
                        f"`{item.name}` is given twice in {where} (first at line {first.line})",
                        "duplicate-field",
                    )
                    continue
                seen[item.name] = item.span
                values[item.name] = converted
            elif isinstance(item, s.BlockNode):
                if item.name not in spec.blocks:
                    options = list(spec.blocks) + list(known)
                    self.error(
                        item.span,
                        f"`{item.name} {{ ... }}` is not allowed in {where}",
                        "unknown-block",
                        help=_suggest(item.name, options)
                        or f"blocks allowed here: {', '.join(spec.blocks) or 'none'}",
                    )
                    continue
                blocks.append(item)
            elif isinstance(item, s.EvidenceNode):
                self.error(
                    item.span,
                    f"`evidence` belongs directly in the case, not in {where}",
                    "misplaced",
                )
            elif isinstance(item, s.MatchNode):
                self.error(
                    item.span, f"`match` belongs directly in the case, not in {where}", "misplaced"
                )
        return values, blocks

    def text(self, values: dict[str, Any], name: str, span: Span) -> m.Text | None:
        en = values.get(name)
        zh = values.get(f"{name}.zh")
        if en is None and zh is None:
            return None
        return m.Text(en=en or "", zh=zh, span=span)

    def label_text(self, block: s.BlockNode, spec: sc.BlockSpec) -> str:
        if block.label is None:
            self.error(
                block.span,
                f'`{block.name}` needs a {spec.label_doc}: `{block.name} "..." {{ ... }}`',
                "missing-label",
            )
            return ""
        if isinstance(block.label, s.StringValue | s.TextBlockValue):
            return block.label.value
        self.error(
            block.label.span,
            f"the label of `{block.name}` is {spec.label_doc}, written as a string",
            "bad-value",
        )
        return ""

    def no_label(self, block: s.BlockNode) -> None:
        if block.label is not None:
            self.error(
                block.label.span,
                f"`{block.name}` takes no label: `{block.name} {{ ... }}`",
                "bad-value",
            )

    # ------------------------------------------------------------------ pieces
    def collect(self, block: s.BlockNode) -> tuple[list[m.CodeBlock], m.Text | None]:
        spec = sc.BLOCKS["collect"]
        self.no_label(block)
        values, _ = self.fields(block.items, spec, spec.fields, "collect")
        runs = [c for c in values.get("run", []) if c is not None]
        return runs, self.text(values, "note", block.span)

    def query(self, node: s.EvidenceNode) -> m.Query | None:
        kind = KINDS.get(node.kind)
        if kind is None:
            self.error(
                node.span,
                f"unknown evidence kind `{node.kind}` for `{node.name}`",
                "unknown-kind",
                help=_suggest(node.kind, KINDS) or f"kinds: {', '.join(KINDS)}",
            )
            return None
        spec = sc.BLOCKS["evidence"]
        where = f"`{node.kind}` evidence `{node.name}`"
        values, blocks = self.fields(node.items, spec, sc.COMMON_QUERY_FIELDS + kind.fields, where)
        missing = [n for n in kind.required if n not in values]
        for name in missing:
            self.error(node.span, f"{where} needs `{name}`", "missing-field")
        if missing or any(v is None for v in values.values()):
            return None
        common: dict[str, Any] = {
            "name": node.name,
            "span": node.span,
            "description": self.text(values, "describe", node.span),
        }
        common["collect"] = [c for c in values.pop("collect", []) if c is not None]
        for block in blocks:
            runs, common["collect_note"] = self.collect(block)
            common["collect"] += runs
        return kind.lower(node, values, common, self)

    def expr(self, node: s.Expr) -> m.Expr:
        if isinstance(node, s.RefExpr):
            return m.Ref(name=node.name, span=node.span)
        if isinstance(node, s.NotExpr):
            return m.Not(operand=self.expr(node.operand), span=node.span)
        if isinstance(node, s.AndExpr):
            return m.And(operands=[self.expr(o) for o in node.operands], span=node.span)
        if isinstance(node, s.OrExpr):
            return m.Or(operands=[self.expr(o) for o in node.operands], span=node.span)
        count = node.count.value
        operands = [self.expr(o) for o in node.operands]
        if number_problem(count, whole=True) or count < 1:
            self.error(
                node.count.span, "`at_least N of (...)` needs a whole number N ≥ 1", "bad-value"
            )
            count = 1  # `check_satisfiable` reports an N above the operands' number
        return m.AtLeast(count=int(count), operands=operands, span=node.span)

    def condition(self, node: s.MatchNode) -> m.Condition:
        clauses = []
        for c in node.clauses:
            weight = 1.0 if c.weight is None else c.weight.value
            if not 0 < weight <= MAX_WEIGHT:  # NaN and infinity fail this too
                self.error(
                    c.weight.span if c.weight else c.span,
                    f"a weight must be above 0 and at most {MAX_WEIGHT:g}",
                    "bad-value",
                )
                weight = 1.0
            clauses.append(
                m.Clause(role=m.Role(c.role), expr=self.expr(c.expr), weight=weight, span=c.span)
            )
        return m.Condition(clauses=clauses, span=node.span)

    def step(self, block: s.BlockNode) -> m.Step:
        spec = sc.BLOCKS["step"]
        title = self.label_text(block, spec)
        values, blocks = self.fields(block.items, spec, spec.fields, f'step "{title}"')
        alternatives = []
        labels_zh: list[str | None] = []
        for option in blocks:
            ospec = sc.BLOCKS["option"]
            label = self.label_text(option, ospec)
            ovalues, _ = self.fields(option.items, ospec, ospec.fields, f'option "{label}"')
            if ovalues.get("run") is not None:
                alternatives.append((label, ovalues["run"]))
                labels_zh.append(ovalues.get("label.zh"))
            else:
                self.error(
                    option.span, f'option "{label}" needs a `run` code block', "missing-field"
                )
        return m.Step(
            title=m.Text(en=title, zh=values.get("title.zh"), span=block.span),
            why=self.text(values, "why", block.span),
            commands=[c for c in values.get("run", []) if c is not None],
            alternatives=alternatives,
            alternative_labels_zh=labels_zh,
            verify=self.text(values, "verify", block.span),
            verify_commands=[c for c in values.get("verify_run", []) if c is not None],
            span=block.span,
        )

    def remedy(self, block: s.BlockNode) -> m.Remedy:
        spec = sc.BLOCKS["remedy"]
        title = self.label_text(block, spec)
        values, blocks = self.fields(block.items, spec, spec.fields, f'remedy "{title}"')
        steps = [self.step(b) for b in blocks]
        if not steps:
            self.error(block.span, f'remedy "{title}" has no `step`', "missing-field")
        return m.Remedy(
            title=m.Text(en=title, zh=values.get("title.zh"), span=block.span),
            steps=steps,
            span=block.span,
        )

    def symptom(self, block: s.BlockNode) -> m.Symptom:
        spec = sc.BLOCKS["symptom"]
        text = self.label_text(block, spec)
        values, _ = self.fields(block.items, spec, spec.fields, "symptom")
        return m.Symptom(
            text=m.Text(en=text, zh=values.get("zh"), span=block.span),
            evidence=values.get("shows") or [],
            span=block.span,
        )

    def fixture(self, block: s.BlockNode) -> m.FixtureExpectation | None:
        spec = sc.BLOCKS["fixture"]
        path = self.label_text(block, spec)
        values, blocks = self.fields(block.items, spec, spec.fields, f'fixture "{path[:80]}"')
        if not m.safe_fixture_path(path):
            self.error(
                block.span,
                f'fixture "{path[:80]}" must name one folder under fixtures/: '
                "`positive/<name>` or `negative/<name>`, where <name> is letters, digits, "
                "`.`, `_` and `-` (no `..`, no `/`, at most 200 characters)",
                "bad-fixture-path",
            )
            return None
        if "expect" not in values:
            self.error(
                block.span,
                f'fixture "{path}" needs `expect match`, `expect possible` or `expect no-match`',
                "missing-field",
            )
            return None
        lines: list[tuple[str, str]] = []
        for lb in blocks:
            self.no_label(lb)
            for item in lb.items:
                if isinstance(item, s.AttributeNode) and isinstance(item.value, s.StringValue):
                    lines.append((item.name, item.value.value))
                else:
                    self.error(
                        item.span, 'inside `lines { }` write `QUERY "file:line"`', "bad-value"
                    )
        return m.FixtureExpectation(
            path=path,
            outcome=values["expect"] or "match",
            culprit_rank=values.get("culprit_rank"),
            lines=lines,
            todo=values.get("todo"),
            span=block.span,
        )

    def provenance(self, block: s.BlockNode) -> m.Provenance:
        spec = sc.BLOCKS["provenance"]
        self.no_label(block)
        values, _ = self.fields(block.items, spec, spec.fields, "provenance")
        return m.Provenance(
            source=values.get("source"),
            date=values.get("date"),
            verified_on=self.text(values, "verified_on", block.span),
            authors=values.get("authors") or [],
            span=block.span,
        )

    # ------------------------------------------------------------------ the case
    def case(self, file: s.CaseFile, folder: str = "") -> m.Case | None:
        node = file.case
        spec = sc.BLOCKS["case"]
        evidence = [i for i in node.items if isinstance(i, s.EvidenceNode)]
        matches = [i for i in node.items if isinstance(i, s.MatchNode)]
        rest = [i for i in node.items if isinstance(i, s.AttributeNode | s.BlockNode)]
        values, blocks = self.fields(rest, spec, spec.fields, f"case `{node.id}`")
        for required in ("title", "summary"):
            if values.get(required) is None:
                self.error(node.span, f"case `{node.id}` needs `{required}`", "missing-field")
        if not matches:
            self.error(
                node.span, f"case `{node.id}` needs a `match {{ ... }}` condition", "missing-field"
            )
        for extra in matches[1:]:
            self.error(extra.span, "a case has one `match` block", "duplicate-field")
        queries = []
        broken: list[str] = []
        seen: dict[str, Span] = {}
        for ev in evidence:
            if ev.name in seen:
                self.error(
                    ev.span,
                    f"evidence `{ev.name}` is defined twice (first at line {seen[ev.name].line})",
                    "duplicate-evidence",
                )
                continue
            seen[ev.name] = ev.span
            q = self.query(ev)
            if q is not None:
                queries.append(q)
            else:
                broken.append(ev.name)
        by_name: dict[str, list[s.BlockNode]] = {}
        for b in blocks:
            by_name.setdefault(b.name, []).append(b)
        for name, group in by_name.items():
            if not sc.BLOCKS[name].repeatable and len(group) > 1:
                self.error(group[1].span, f"`{name}` is given twice", "duplicate-field")
        condition = self.condition(matches[0]) if matches else m.Condition(clauses=[])
        provenance = [self.provenance(b) for b in by_name.get("provenance", [])]
        fixtures = [f for f in (self.fixture(b) for b in by_name.get("fixture", [])) if f]
        data: dict[str, Any] = {
            k: v
            for k, v in values.items()
            if v is not None and "." not in k and k not in ("title", "summary", "cause")
        }
        try:
            return m.Case(
                id=node.id,
                title=self.text(values, "title", node.span) or m.Text(en=""),
                summary=self.text(values, "summary", node.span) or m.Text(en=""),
                cause=self.text(values, "cause", node.span),
                provenance=provenance[0] if provenance else None,
                symptoms=[self.symptom(b) for b in by_name.get("symptom", [])],
                queries=queries,
                condition=condition,
                remedies=[self.remedy(b) for b in by_name.get("remedy", [])],
                fixtures=fixtures,
                folder=folder,
                broken_queries=broken,
                item_spans={
                    i.name: [v.span for v in i.value.items]
                    for i in rest
                    if isinstance(i, s.AttributeNode) and isinstance(i.value, s.ListValue)
                },
                span=node.span,
                **data,
            )
        except ValueError as err:  # pragma: no cover - schema and model disagree: a bug
            self.error(node.span, f"internal error building the case: {err}", "internal")
            return None


def lower(file: s.CaseFile, folder: str = "") -> tuple[m.Case | None, list[Diagnostic]]:
    lowerer = Lowerer()
    case = lowerer.case(file, folder)
    return case, lowerer.diagnostics
