"""The shape every lint rule shares: a code, a severity, a one-line description, a check.

Rules are small classes (as pySigma's validators are) so each can be documented, tested and
given its severity on its own; `kb.lint.RULES` is the registry `lint_cases` runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from dsl import model as m
from dsl.diagnostics import Diagnostic, Severity
from dsl.span import Span


class Rule:
    """One lint rule. Subclasses set the class attributes and implement `check`."""

    code: ClassVar[str]
    severity: ClassVar[Severity]
    description: ClassVar[str]
    help: ClassVar[str | None] = None

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        raise NotImplementedError

    def report(self, span: Span, message: str, help: str | None = None) -> Diagnostic:
        return Diagnostic.at(
            span,
            message,
            code=self.code,
            severity=self.severity,
            help=help if help is not None else self.help,
        )


def is_placeholder(text: str | None) -> bool:
    """Blank, or still the `TODO` that `kb new` wrote there."""
    return text is None or not text.strip() or text.lstrip().upper().startswith("TODO")
