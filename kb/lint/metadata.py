"""Metadata a reader and the site rely on: title, summary, severity, components, references,
provenance. `kb new` leaves `TODO` placeholders, which count as missing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from dsl import model as m
from dsl.diagnostics import Diagnostic, Severity
from dsl.span import Span
from kb.lint.base import Rule, is_placeholder

REQUIRED = ("title", "summary", "severity", "components", "references", "provenance")


def written_attributes(case: m.Case) -> set[str] | None:
    """Top-level attribute and block names as typed (severity has a default in the model)."""
    spans = attribute_spans(case)
    return None if spans is None else set(spans)


def attribute_spans(case: m.Case) -> dict[str, Span] | None:
    """Where each top-level attribute or block was written (the model keeps the case's span
    for title, summary and cause), or None when the file cannot be read again."""
    from dsl.parser import CaseSyntaxError, parse_text

    path = Path(case.folder) / "case.kb" if case.folder else Path(case.span.path)
    try:
        tree = parse_text(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError, CaseSyntaxError):
        return None
    out: dict[str, Span] = {}
    for item in tree.case.items:
        if hasattr(item, "name"):
            out.setdefault(item.name, item.span.model_copy(update={"path": case.span.path}))
    return out


class MissingMetadata(Rule):
    code = "lint/missing-metadata"
    severity = Severity.WARNING
    description = "A required metadata field is missing or still a TODO placeholder."
    help = "every case needs: " + ", ".join(REQUIRED)

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        missing = []
        if is_placeholder(case.title.en):
            missing.append("title")
        if is_placeholder(case.summary.en):
            missing.append("summary")
        written = written_attributes(case)
        if written is not None and "severity" not in written:
            missing.append("severity")
        if not [c for c in case.components if not is_placeholder(c)]:
            missing.append("components")
        if not [r for r in case.references if not is_placeholder(r)]:
            missing.append("references")
        prov = case.provenance
        if prov is None or (is_placeholder(prov.source) and not prov.authors):
            missing.append("provenance")
        if missing:
            yield self.report(case.span, f"case `{case.id}` is missing {', '.join(missing)}")


class PlaceholderText(Rule):
    """Error, not warning: a case that still reads TODO is a draft, and a draft must not
    reach a diagnosis (`kb.lint.drafts` leaves it out of `kb diagnose`)."""

    code = "lint/placeholder-text"
    severity = Severity.ERROR
    description = (
        "Prose (title, summary, cause, symptom, step, query description) still reads TODO."
    )
    help = "replace the TODO that `kb new` left with the real text"

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        texts: list[tuple[str, m.Text | None, m.Node]] = [
            ("title", case.title, case),
            ("summary", case.summary, case),
            ("cause", case.cause, case),
        ]
        texts += [("symptom", s.text, s) for s in case.symptoms]
        texts += [(f"evidence `{q.name}` describe", q.description, q) for q in case.queries]
        for remedy in case.remedies:
            texts.append(("remedy title", remedy.title, remedy))
            for step in remedy.steps:
                texts += [
                    ("step title", step.title, step),
                    ("step why", step.why, step),
                    ("step verify", step.verify, step),
                ]
        written: dict[str, Span] | None = None  # re-parsed only to place a finding
        for what, text, node in texts:
            if text is not None and (
                is_placeholder(text.en) or (text.zh is not None and is_placeholder(text.zh))
            ):
                span = text.span if text.span.line else node.span
                if node is case:
                    written = attribute_spans(case) or {} if written is None else written
                    span = written.get(what, span)
                yield self.report(
                    span,
                    f"{what} is still a placeholder: {text.en.strip()[:60]!r}",
                )
        for q in case.queries:
            if isinstance(q, m.LogQuery) and is_placeholder(q.pattern.pattern):
                yield self.report(
                    q.pattern.span, f"evidence `{q.name}` pattern is still a placeholder"
                )
