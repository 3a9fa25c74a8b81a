"""A message template, as its emitter prints it, turned into the regex the scanner runs.

Templates keep the emitter's text and name its variable parts, so the catalogue reads like
the source it came from and a case can put a condition on a part by name:

    NET/IB : Got completion from peer {peer} with error {status:int}, vendor err {vendor:int}

`{name}` is any text (possibly empty), `{name:int}` a whole number, `{name:hex}` a hex number
(with or without 0x), `{name:num}` a decimal number, `{name:word}` a run without spaces;
`{_}` is an anonymous gap. `{{` and `}}` are literal braces. A run of spaces matches any run
of blanks (logs re-indent and terminals re-wrap).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Bumped when a template compiles to a different pattern: the compile cache and the message
# index carry it in their keys, so a cached pattern of the old shape is never reused.
TEMPLATE_VERSION = 2

# What each field type matches. Bodies carry no capture groups of their own, so a condition
# can replace a body with alternatives of literal values (see `with_values`).
TYPES: dict[str, str] = {
    "text": r".*?",
    "int": r"-?\d+",
    "hex": r"(?:0[xX])?[0-9a-fA-F]+",
    "num": r"-?\d+(?:\.\d+)?",
    "word": r"\S+",
}

_FIELD = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)(?::([a-z]+))?\}|[{}]")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class TemplateError(ValueError):
    """A template that cannot be turned into a pattern; the message says what to write."""


@dataclass(frozen=True)
class Template:
    text: str
    regex: str  # named groups, one per field
    fields: dict[str, str]  # field name -> type, in order of appearance


def parse_template(text: str) -> Template:
    """The pattern for `text`; raises TemplateError with the reason."""
    if not text.strip():
        raise TemplateError("a wording needs some text")
    out: list[str] = []
    fields: dict[str, str] = {}
    pos = 0
    for found in _FIELD.finditer(text):
        out.append(_literal(text[pos : found.start()]))
        pos = found.end()
        token = found.group(0)
        if token in ("{{", "}}"):
            out.append(re.escape(token[0]))
            continue
        if token in ("{", "}"):
            raise TemplateError(
                f"a lone `{token}` at column {found.start() + 1}: write `{token * 2}` for a "
                "literal brace, or `{name}` / `{name:int}` for a field"
            )
        name, kind = found.group(1), found.group(2) or "text"
        if kind not in TYPES:
            raise TemplateError(
                f"`{{{name}:{kind}}}`: unknown field type `{kind}` (types: {', '.join(TYPES)})"
            )
        if name == "_":
            out.append(f"(?:{TYPES[kind]})")
            continue
        if name in fields:
            raise TemplateError(f"the field `{name}` appears twice; give the second a new name")
        fields[name] = kind
        out.append(f"(?P<{name}>{TYPES[kind]})")
    out.append(_tail(text[pos:]) if fields else _literal(text[pos:]))
    regex = "".join(out)
    literal = re.sub(r"\{[^{}]*\}", "", text)
    if len(re.sub(r"\s+", "", literal)) < 6:
        raise TemplateError("a wording needs at least six characters of fixed text to be found")
    return Template(text=text, regex=regex, fields=fields)


_MIN_TAIL = 8  # a shorter tail is kept whole: cutting it would leave too little to tell apart
_KEPT_CHARS = 4  # of the tail at least, where a line is cut
_TAIL_PIECES = re.compile(r"\s+|\S")


def _tail(part: str) -> str:
    """The text after the last field, or the start of it where the line ends.

    A log posted in a thread, a terminal or a grep is often cut at the margin:
    `… ran for 1800437 millisecond`. Every field is read by then, so the message is known;
    the rest of its fixed text may be missing, but only at the end of the line.
    """
    if len(part.strip()) < _MIN_TAIL:
        return _literal(part)
    pieces = _TAIL_PIECES.findall(part)
    # keep the first few characters of the tail: a line cut right after a field could be
    # any message that starts the same way (`…:1970, unhandled` vs `…:1970, invalid`)
    kept = seen = 0
    while kept < len(pieces) and seen < _KEPT_CHARS:
        seen += not pieces[kept].isspace()
        kept += 1
    cut = ""
    for piece in reversed(pieces[kept:]):
        cut = f"(?:{_literal(piece)}{cut})?"
    return f"(?:{_literal(part)}|{_literal(''.join(pieces[:kept]))}{cut}[ \\t\\r]*$)"


def _literal(part: str) -> str:
    pieces = re.split(r"( +)", part)
    return "".join(r"\s+" if p and p.isspace() else re.escape(p) for p in pieces)


def with_values(regex: str, values: dict[str, list[str]]) -> str:
    """`regex` with the body of each named field replaced by the alternatives given.

    Only bodies of our own template fields are replaced: they hold no groups, so the first
    `)` after `(?P<name>` that is not escaped or inside a class ends them."""
    for name, options in values.items():
        if not _NAME.match(name):
            raise TemplateError(f"`{name}` is not a field name")
        start = regex.find(f"(?P<{name}>")
        if start < 0:
            raise TemplateError(f"the pattern has no field `{name}`")
        body_start = start + len(f"(?P<{name}>")
        end = _group_end(regex, body_start)
        alternatives = "|".join(re.escape(o) for o in options)
        regex = f"{regex[:body_start]}{alternatives}{regex[end:]}"
    return regex


def _group_end(regex: str, i: int) -> int:
    depth, in_class = 0, False
    while i < len(regex):
        c = regex[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    raise TemplateError("unbalanced parentheses in the pattern")


def field_names(regex: str) -> list[str]:
    """The named groups of an explicit pattern (a wording written as /regex/)."""
    return re.findall(r"\(\?P<([A-Za-z_][A-Za-z0-9_]*)>", regex)
