"""Diagnostics: every problem found in a run, each printed as `path:line:col`, the source
line and a caret, so a case author at 2 a.m. sees exactly where and what.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum

from pydantic import BaseModel, ConfigDict

from dsl.span import Span


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Diagnostic(BaseModel):
    """One problem. Compares by value, so tests can compare whole lists of them."""

    model_config = ConfigDict(frozen=True)

    path: str
    line: int = 0
    column: int = 0
    message: str
    severity: Severity = Severity.ERROR
    code: str = ""  # rule or error class, e.g. "syntax", "unknown-field", "lint/missing-fixture"
    help: str | None = None
    end_column: int | None = None

    @classmethod
    def at(
        cls,
        span: Span,
        message: str,
        *,
        code: str,
        severity: Severity = Severity.ERROR,
        help: str | None = None,
    ) -> Diagnostic:
        end = span.end_column if span.end_line == span.line and span.end_column else None
        return cls(
            path=span.path,
            line=span.line,
            column=span.column,
            message=message,
            code=code,
            severity=severity,
            help=help,
            end_column=end,
        )

    @property
    def location(self) -> str:
        if self.line:
            return f"{self.path}:{self.line}:{self.column}"
        return self.path


def render(diagnostic: Diagnostic, source: str | None) -> str:
    """`path:line:col: error: message`, then the offending line with a caret under it."""
    out = [f"{diagnostic.location}: {diagnostic.severity.value}: {diagnostic.message}"]
    if source is not None and diagnostic.line:
        lines = source.splitlines()
        if 0 < diagnostic.line <= len(lines):
            text = lines[diagnostic.line - 1].expandtabs(4)
            column = max(diagnostic.column, 1)
            width = 1
            if diagnostic.end_column and diagnostic.end_column > column:
                width = min(diagnostic.end_column - column, max(len(text) - column + 1, 1))
            gutter = f"{diagnostic.line:>5} | "
            out.append(f"{gutter}{text}")
            out.append(" " * (len(gutter) + column - 1) + "^" * width)
        elif diagnostic.line == len(lines) + 1:
            out.append(f"{diagnostic.line:>5} | <end of file>")
    if diagnostic.help:
        out.append(f"  help: {diagnostic.help}")
    return "\n".join(out)


def render_all(diagnostics: Iterable[Diagnostic], sources: dict[str, str]) -> str:
    return "\n\n".join(render(d, sources.get(d.path)) for d in diagnostics)


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.severity is Severity.ERROR for d in diagnostics)
