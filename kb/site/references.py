"""References as a reader wants them: a title, and for issue threads the project and number.

The site is built offline, so titles come from the address itself: a GitHub issue or pull
request becomes "NVIDIA/nccl issue #1405", a forum thread its slug in words, a documentation
page its host and last path part (plus the section it points at). Free text that carries
an address (`provenance.source`) is linked only where the address is.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

from kb.site import escape
from kb.site.escape import Md

_GITHUB = re.compile(r"^/([\w.-]+)/([\w.-]+)/(issues|pull|discussions)/(\d+)")
_URL = re.compile(r"https?://[^\s<>\"'()\[\]{}，。；）（]+")
_TRAILING = ".,;:!?"
KIND_WORDS = {"issues": "issue", "pull": "pull request", "discussions": "discussion"}


def _words(slug: str) -> str:
    slug = unquote(slug)
    slug = re.sub(r"\.(html?|md|php|aspx?)$", "", slug)
    return re.sub(r"[-_+]+", " ", slug).strip()


def title(url: str) -> str:
    """A readable title for `url`, made from its parts."""
    parts = urlsplit(url.strip())
    host = parts.netloc.lower().removeprefix("www.")
    path = parts.path.rstrip("/")
    if host == "github.com":
        found = _GITHUB.match(path)
        if found:
            owner, repo, kind, number = found.groups()
            return f"{owner}/{repo} {KIND_WORDS[kind]} #{number}"
        bits = [b for b in path.split("/") if b]
        if len(bits) >= 2:
            return f"{bits[0]}/{bits[1]} on GitHub" + (
                f": {_words(bits[-1])}" if len(bits) > 2 else ""
            )
    if host == "discuss.pytorch.org":
        bits = [b for b in path.split("/") if b]
        if len(bits) >= 2 and bits[0] == "t":
            return f"PyTorch forums: {_words(bits[1])}"
    bits = [b for b in path.split("/") if b and not b.isdigit()]
    last = _words(bits[-1]) if bits else ""
    section = _words(parts.fragment) if parts.fragment else ""
    text = host + (f": {last}" if last else "")
    return text + (f" — {section}" if section else "")


def reference(url: str) -> Md:
    """One reference: its title linked, or the text as code when it is no web address."""
    return escape.link(title(url), url)


def linked_text(value: str) -> Md:
    """Free text with every web address in it linked, the rest escaped as prose."""
    out: list[str] = []
    last = 0
    for found in _URL.finditer(value):
        url = found.group(0).rstrip(_TRAILING)
        out.append(escape.line(value[last : found.start()]) if found.start() > last else "")
        if value[last : found.start()].endswith(" "):
            out.append(" ")
        out.append(escape.link(title(url), url))
        last = found.start() + len(url)
    tail = value[last:]
    if tail:
        out.append((" " if tail.startswith(" ") else "") + escape.line(tail))
    return Md("".join(out))


def urls(value: str) -> list[str]:
    """The web addresses in free text, trailing punctuation left out."""
    return [found.group(0).rstrip(_TRAILING) for found in _URL.finditer(value)]
