"""A remedy the reader cannot verify is a guess: every step says how to tell it worked."""

from __future__ import annotations

from collections.abc import Iterator

from dsl import model as m
from dsl.diagnostics import Diagnostic, Severity
from kb.lint.base import Rule


class UnverifiedStep(Rule):
    code = "lint/unverified-step"
    severity = Severity.ERROR
    description = "A remedy step has neither `verify` nor `verify_run`."
    help = 'add `verify "what you see when it worked"` or a `verify_run` command'

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        for remedy in case.remedies:
            for step in remedy.steps:
                if step.verify is None and not step.verify_commands:
                    yield self.report(
                        step.span,
                        f"step {step.title.en!r} of remedy {remedy.title.en!r} has no verification",
                    )
