"""Bilingual cases stay paired: once a case has Chinese text, the prose a reader sees first
(title, summary, cause, symptoms, remedy and step titles) has both languages."""

from __future__ import annotations

from collections.abc import Iterator

from dsl import model as m
from dsl.diagnostics import Diagnostic, Severity
from kb.lint.base import Rule


def paired_texts(case: m.Case) -> Iterator[tuple[str, m.Text, m.Node]]:
    yield "title", case.title, case
    yield "summary", case.summary, case
    if case.cause is not None:
        yield "cause", case.cause, case
    for s in case.symptoms:
        yield f"symptom {s.text.en[:40]!r}", s.text, s
    for r in case.remedies:
        yield f"remedy {r.title.en[:40]!r}", r.title, r
        for step in r.steps:
            yield f"step {step.title.en[:40]!r}", step.title, step


def all_texts(case: m.Case) -> Iterator[m.Text]:
    yield from (t for _, t, _ in paired_texts(case))
    for r in case.remedies:
        for step in r.steps:
            yield from (t for t in (step.why, step.verify) if t is not None)
    if case.provenance and case.provenance.verified_on:
        yield case.provenance.verified_on
    yield from (q.description for q in case.queries if q.description is not None)


class UnpairedTranslation(Rule):
    code = "lint/unpaired-translation"
    severity = Severity.ERROR
    description = "Chinese text without English, or a bilingual case missing a `.zh` twin."

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        texts = list(all_texts(case))
        for text in texts:
            if text.zh and not text.en.strip():
                yield self.report(text.span, "Chinese text without its English original")
        if not any(t.zh for t in texts):
            return
        for what, text, node in paired_texts(case):
            if not text.zh:
                yield self.report(
                    text.span if text.span.line else node.span,
                    f"{what} has no `.zh` twin, but this case has Chinese text",
                    help='add the translation, e.g. `title.zh "…"`',
                )
