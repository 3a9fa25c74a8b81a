"""Diagnostics: every problem found in a run, each printed as `path:line:col`, the source
line and a caret, so a case author at 2 a.m. sees exactly where and what.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from dsl.choices import Severity as Severity
from dsl.span import Span


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


# A source line longer than this is shown as a window around the caret.
SHOWN_LINE = 120
_CONTROLS = dict.fromkeys([*range(0x20), 0x7F, *range(0x80, 0xA0)], "\ufffd")


def _printable(text: str) -> str:
    """A case line as a terminal may show it: control characters never reach the screen."""
    return text.translate(_CONTROLS)


def _window(text: str, column: int, width: int) -> tuple[str, int, int]:
    """At most SHOWN_LINE characters of `text` around `column` (1-based), with the caret's
    column and width inside that window; cut ends are marked with `…`."""
    if len(text) <= SHOWN_LINE:
        return text, column, width
    start = max(0, min(column - 1 - SHOWN_LINE // 3, len(text) - SHOWN_LINE))
    shown = text[start : start + SHOWN_LINE]
    prefix = "…" if start else ""
    suffix = "…" if start + SHOWN_LINE < len(text) else ""
    column = column - start + len(prefix)
    width = max(1, min(width, len(prefix) + len(shown) - column + 1))
    return prefix + shown + suffix, column, width


def render(diagnostic: Diagnostic, source: str | None) -> str:
    """`path:line:col: error: message`, then the offending line with a caret under it."""
    out = [f"{diagnostic.location}: {diagnostic.severity.value}: {diagnostic.message}"]
    if source is not None and diagnostic.line:
        lines = source.split("\n")  # the parser counts `\n` only, so must the display
        if lines and lines[-1] == "":
            lines.pop()  # the file's final newline does not start a line
        if 0 < diagnostic.line <= len(lines):
            text = _printable(lines[diagnostic.line - 1].rstrip("\r").expandtabs(4))
            column = max(diagnostic.column, 1)
            width = 1
            if diagnostic.end_column and diagnostic.end_column > column:
                width = min(diagnostic.end_column - column, max(len(text) - column + 1, 1))
            text, column, width = _window(text, column, width)
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


def did_you_mean(name: str, options: Iterable[str]) -> str | None:
    """The help line for a misspelt name: the closest option, if any is close."""
    import difflib

    close = difflib.get_close_matches(name, sorted(options), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else None
