"""A log pattern as the message a reader would see in a log, its variable parts marked.

Readers never see a raw regex: `NET\\/IB ?: ?Got completion with error ?\\d+` becomes
"NET/IB : Got completion with error ‹number›". The pattern is parsed with Python's own
regex parser (case patterns are RE2, a subset it reads); each top-level alternative is one
message, optional parts are left out (as in the shortest line the pattern accepts) and
every repeated or class part becomes a named placeholder. A pattern the parser cannot read
falls back to its longest literal run.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import Any

try:  # Python 3.11+ keeps the regex parser inside `re`
    sre_parse: Any = importlib.import_module("re._parser")
    sre: Any = importlib.import_module("re._constants")
except ImportError:  # pragma: no cover - Python 3.10
    sre_parse = importlib.import_module("sre_parse")
    sre = importlib.import_module("sre_constants")

MAX_MESSAGES = 4
MAX_PATTERN = 4000


@dataclass(frozen=True)
class Part:
    """Literal text, or a placeholder (`variable=True`) naming what varies there."""

    text: str
    variable: bool = False


Message = tuple[Part, ...]

_DIGITS = {sre.CATEGORY_DIGIT}
_WORD = {sre.CATEGORY_WORD}
_SPACE = {sre.CATEGORY_SPACE}


def _class_name(items: list[tuple[Any, Any]]) -> str:
    """What a character class stands for: number, hex, name or anything."""
    cats = {av for op, av in items if op is sre.CATEGORY}
    ranges = {av for op, av in items if op is sre.RANGE}
    if cats <= _DIGITS and cats and not ranges:
        return "number"
    if ranges and all(lo >= ord("0") and hi <= ord("9") for lo, hi in ranges) and not cats:
        return "number"
    if ranges and any(lo == ord("a") and hi == ord("f") for lo, hi in ranges):
        return "hex"
    if cats & _WORD or ranges:
        return "name"
    return "…"


def _single(op: Any, av: Any) -> Part | None:
    """One character-sized item; None when it matches nothing visible (an anchor)."""
    if op is sre.LITERAL:
        return Part(chr(av))
    if op is sre.NOT_LITERAL:
        return Part("…", True)
    if op is sre.ANY:
        return Part("…", True)
    if op is sre.IN:
        items = list(av)
        if items and items[0][0] is sre.NEGATE:
            return Part("…", True)
        literals = [chr(a) for o, a in items if o is sre.LITERAL]
        if literals and len(literals) == len(items):
            return Part(literals[0])
        if items and all(o is sre.CATEGORY and a in _SPACE for o, a in items):
            return Part(" ")
        return Part(_class_name(items), True)
    if op is sre.CATEGORY:
        return Part(" ") if av in _SPACE else Part(_class_name([(op, av)]), True)
    return None


def _render(items: Any) -> list[Part]:
    out: list[Part] = []
    for op, av in items:
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None)):
            low, _high, sub = av
            inner = _render(sub)
            if low == 0:
                if inner and all(not p.variable and not p.text.strip() for p in inner):
                    out.append(Part(" "))
                elif len(inner) == 1 and inner[0].variable:
                    out.append(Part("…", True))
                continue
            if len(inner) == 1 and inner[0].variable:
                out.append(inner[0])
            elif len(inner) == 1 and not inner[0].text.strip():
                out.append(Part(" "))
            else:
                out.extend(inner * min(low, 3))
        elif op is sre.SUBPATTERN:
            out.extend(_render(av[-1]))
        elif op is sre.BRANCH:
            out.extend(_render(av[1][0]))
        elif op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT, sre.GROUPREF):
            continue
        else:
            part = _single(op, av)
            if part is not None:
                out.append(part)
    return out


def _merge(parts: list[Part]) -> Message:
    """Join adjacent literals, collapse runs of spaces, squeeze repeated placeholders."""
    merged: list[Part] = []
    for part in parts:
        if merged and not part.variable and not merged[-1].variable:
            merged[-1] = Part(merged[-1].text + part.text)
        elif merged and part.variable and merged[-1].variable and part.text == merged[-1].text:
            continue
        else:
            merged.append(part)
    cleaned = [Part(re.sub(r" {2,}", " ", p.text)) if not p.variable else p for p in merged]
    while cleaned and not cleaned[0].variable and not cleaned[0].text.strip():
        cleaned.pop(0)
    while cleaned and not cleaned[-1].variable and not cleaned[-1].text.strip():
        cleaned.pop()
    if cleaned and not cleaned[0].variable:
        cleaned[0] = Part(cleaned[0].text.lstrip())
    if cleaned and not cleaned[-1].variable:
        cleaned[-1] = Part(cleaned[-1].text.rstrip())
    return tuple(cleaned)


def literal_runs(pattern: str) -> list[str]:
    """The plain-text stretches of a pattern, for when it cannot be parsed."""
    chunks = re.split(r"\\[A-Za-z]|\(\?[a-zA-Z]+\)|[\[\](){}*+?|^$.\\]", pattern)
    return [c.strip() for c in chunks if c.strip()]


def messages(pattern: str) -> list[Message]:
    """Each top-level alternative of `pattern` as a message (at most `MAX_MESSAGES`)."""
    if len(pattern) > MAX_PATTERN:
        pattern = pattern[:MAX_PATTERN]
    try:
        tree = sre_parse.parse(pattern)
    except (re.error, RecursionError, OverflowError, ValueError, TypeError):
        runs = literal_runs(pattern)
        return [(Part(max(runs, key=len)),)] if runs else []
    items = list(tree)
    branches = [items]
    if len(items) == 1 and items[0][0] is sre.BRANCH:
        branches = [list(b) for b in items[0][1][1]]
    elif (
        len(items) == 1
        and items[0][0] is sre.SUBPATTERN
        and len(items[0][1][-1]) == 1
        and items[0][1][-1][0][0] is sre.BRANCH
    ):
        branches = [list(b) for b in items[0][1][-1][0][1][1]]
    out: list[Message] = []
    for branch in branches:
        message = _merge(_render(branch))
        readable = any(not p.variable and p.text.strip() for p in message)
        if message and readable and message not in out:
            out.append(message)
        if len(out) >= MAX_MESSAGES:
            break
    return out


def plain(message: Message) -> str:
    """A message as plain text, placeholders in angle quotes: "error ‹number›"."""
    return "".join(f"‹{p.text}›" if p.variable and p.text != "…" else p.text for p in message)


def longest_literal(message: Message) -> str:
    """The longest literal stretch of a message: what `grep -F` can look for."""
    texts = [p.text.strip() for p in message if not p.variable]
    return max(texts, key=len, default="")
