"""Turning untrusted case text into Markdown that renders as exactly that text.

Case files are contributed by anyone, and MkDocs' theme templates do not escape, so every
string from a case goes through one of these before it reaches a page: prose is escaped
character by character (the site enables `pymdownx.escapeall`, so any ASCII punctuation can
be backslash-escaped), code goes into fences longer than any backtick run inside it.
"""

from __future__ import annotations

import json
import re
import string
from urllib.parse import quote, urlsplit

_PUNCT = frozenset(string.punctuation)
_BACKTICKS = re.compile(r"`+")


class Md(str):
    """Markdown that is already safe to place in a page as it is."""

    __slots__ = ()


_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def _literal(value: str) -> str:
    return "".join("\\" + ch if ch in _PUNCT else ch for ch in value)


def text(value: object) -> Md:
    """Prose as literal text: every ASCII punctuation mark escaped, no indentation kept.

    The one piece of markup kept is `code` in backticks, as authors write it in prose; it
    is re-emitted by `code()`, whose content Markdown never interprets. Leading whitespace
    is dropped so a line cannot turn into an indented code block inside an admonition or a
    tab; blank lines still separate paragraphs.
    """
    raw = str(value).replace("\r\n", "\n").replace("\r", "\n")
    out = []
    for line in paragraphs(raw):
        pieces, last = [], 0
        for span in _SPAN.finditer(line):
            pieces.append(_literal(line[last : span.start()]))
            pieces.append(code(span.group(2)))
            last = span.end()
        pieces.append(_literal(line[last:]))
        out.append("".join(pieces))
    return Md("\n\n".join(out).strip("\n"))


def paragraphs(value: str) -> list[str]:
    """Paragraphs with their lines joined, so `code` wrapped across a line stays code."""
    blocks = re.split(r"\n[ \t]*\n", value)
    joined = (" ".join(ln.strip() for ln in block.split("\n") if ln.strip()) for block in blocks)
    return [p for p in joined if p]


def line(value: object) -> Md:
    """Prose that must stay on one line (list items, link texts, headings)."""
    return Md(" ".join(text(value).split("\n\n")).strip())


def _longest_run(value: str) -> int:
    return max((len(m.group(0)) for m in _BACKTICKS.finditer(value)), default=0)


def code(value: object) -> Md:
    """An inline code span that cannot be closed early by backticks inside it."""
    raw = " ".join(str(value).splitlines())
    ticks = "`" * (_longest_run(raw) + 1)
    pad = " " if raw.startswith(("`", " ")) or raw.endswith(("`", " ")) or not raw else ""
    return Md(f"{ticks}{pad}{raw}{pad}{ticks}")


_LANG = re.compile(r"^[A-Za-z0-9_+\-]{1,40}$")


def fence(value: object, language: str = "text", options: str = "") -> Md:
    """A fenced code block whose fence is longer than any backtick run inside the code.

    `options` is trusted text written by the site itself (`linenums="3" hl_lines="2"`);
    an unexpected language name falls back to plain text.
    """
    body = str(value).replace("\r\n", "\n").replace("\r", "\n").rstrip("\n")
    ticks = "`" * max(3, _longest_run(body) + 1)
    lang = language if _LANG.match(language or "") else "text"
    head = f"{ticks}{lang}" + (f" {options}" if options else "")
    return Md(f"{head}\n{body}\n{ticks}")


_SAFE_URL = "/:?#@!$&*+,;=%~-._"


def link(label: object, url: str) -> Md:
    """A Markdown link for http(s) URLs only; anything else is shown as code, not linked."""
    parts = urlsplit(url.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return code(url)
    href = quote(url.strip(), safe=_SAFE_URL)
    return Md(f"[{line(label)}]({href})")


def html_text(value: object) -> str:
    """Plain text for places the theme prints unescaped (page titles, nav, front matter)."""
    import html  # the site's pages only: a report imports this module for `Md` (~2.5 ms)

    return html.escape(" ".join(str(value).split()), quote=True)


def yaml_str(value: object) -> str:
    """A YAML scalar for front matter (JSON strings are valid YAML), HTML-escaped first."""
    return json.dumps(html_text(value))


_TAG_UNSAFE = re.compile(r"[^\w .+\-]+")


def tag(value: object) -> str:
    """A tag name the tags plugin can print unescaped: word characters, space, `.+-` only."""
    cleaned = _TAG_UNSAFE.sub("-", str(value)).strip(" -")
    return cleaned or "untagged"


def indent(value: str, width: int = 4) -> Md:
    """Indent every non-empty line (content of admonitions, tabs and list items)."""
    pad = " " * width
    return Md("\n".join(pad + ln if ln.strip() else "" for ln in str(value).split("\n")))
