"""Attribute values as a field wants them: the one place a value's kind and bounds are checked,
shared by the case lowerer (`dsl.lower`) and the catalogue's (`dsl.catalogue.lower`)."""

from __future__ import annotations

import datetime
import difflib
import math
from collections.abc import Callable, Iterable
from typing import Any

from dsl import model as m
from dsl import schema as sc
from dsl import syntax as s

ErrorFn = Callable[..., None]  # (span, message, code, help=None): where a problem is recorded


def _suggest(name: str, options: Iterable[str]) -> str | None:
    close = difflib.get_close_matches(name, list(options), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else None


def _value_kind(value: s.Value) -> str:
    return {
        s.StringValue: "a string",
        s.TextBlockValue: "a text block",
        s.CodeBlockValue: "a code block",
        s.RegexValue: "a regex",
        s.NumberValue: "a number",
        s.DateValue: "a date",
        s.WordValue: "a word",
        s.ListValue: "a list",
    }[type(value)]


EXPECTED_WORDS = {
    sc.TEXT: 'a "string" or a """text block"""',
    sc.WORD: "a bare word",
    sc.WORDS: "a list `[a, b]`",
    sc.STRINGS: 'a list of strings `["a", "b"]`',
    sc.REGEX: "a /regex/",
    sc.INT: "a whole number",
    sc.NUMBER: "a number",
    sc.DATE: "a date YYYY-MM-DD",
    sc.CODE: "a ```code block```",
    sc.STRING_OR_DATE: "a date YYYY-MM-DD",
}


# Every number a case can hold (counts, weights, at_least N) is small: a bound keeps a stranger's
# 400-digit literal from becoming infinity or an integer no later step can handle.
MAX_NUMBER = 1_000_000
MAX_WEIGHT = 100.0


def number_problem(value: float, *, whole: bool = False) -> str | None:
    """Why `value` cannot be a number of a case, or None when it can."""
    if not math.isfinite(value) or abs(value) > MAX_NUMBER:
        return f"numbers in a case are between -{MAX_NUMBER:,} and {MAX_NUMBER:,}"
    if whole and value != int(value):
        return "a whole number is needed here"
    return None


def date_problem(text: str) -> str | None:
    """Why `text` is not a calendar date YYYY-MM-DD, or None when it is."""
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return f"`{text}` is not a calendar date (YYYY-MM-DD)"
    return None


def convert_value(value: s.Value, f: sc.Field, where: str, error: ErrorFn) -> Any:
    """The Python value of `value` as field `f` wants it, or None after an error."""
    kind = f.kind
    bad = f"`{f.name}` in {where} takes {EXPECTED_WORDS[kind]}, not {_value_kind(value)}"
    if kind == sc.TEXT:
        if isinstance(value, s.StringValue | s.TextBlockValue):
            return value.value
    elif kind == sc.WORD:
        if isinstance(value, s.WordValue | s.StringValue):
            word = value.value
            if f.choices and word not in f.choices:
                error(
                    value.span,
                    f"`{f.name}` cannot be `{word}`; expected one of: {', '.join(f.choices)}",
                    "bad-value",
                    help=_suggest(word, f.choices),
                )
                return None
            return word
    elif kind in (sc.WORDS, sc.STRINGS):
        if isinstance(value, s.ListValue):
            out: list[str] = []
            for item in value.items:
                if isinstance(item, s.WordValue | s.StringValue):
                    out.append(item.value)
                else:
                    error(
                        item.span,
                        f"items of `{f.name}` are words or strings, not {_value_kind(item)}",
                        "bad-value",
                    )
            return out
        if isinstance(value, s.WordValue | s.StringValue):
            return [value.value]
    elif kind == sc.REGEX:
        if isinstance(value, s.RegexValue):
            return m.Regex(pattern=value.pattern, flags=value.flags, span=value.span)
    elif kind in (sc.INT, sc.NUMBER) and isinstance(value, s.NumberValue):
        problem = number_problem(value.value, whole=kind == sc.INT)
        if problem is None:
            return int(value.value) if kind == sc.INT else value.value
        bad = f"`{f.name}` in {where}: {problem}"
    elif kind == sc.CODE:
        if isinstance(value, s.CodeBlockValue):
            return m.CodeBlock(language=value.language or "text", code=value.code, span=value.span)
    elif kind in (sc.DATE, sc.STRING_OR_DATE) and isinstance(value, s.DateValue | s.StringValue):
        problem = date_problem(value.value) if isinstance(value, s.DateValue) else None
        if problem is None:
            return value.value
        bad = f"`{f.name}` in {where}: {problem}"
    error(value.span, bad, "bad-value")
    return None
