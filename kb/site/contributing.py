"""Bring the repository's CONTRIBUTING.md into the contributing page when it exists.

Done here instead of with the snippets extension: snippets would also expand `--8<--`
lines inside case code blocks, letting a case pull any repository file into the site.
Relative links are made plain text, since they point into the repository, not the site.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.pages import Page

MARKER = "<!-- kb:contributing -->"
PAGE = "contributing.md"

_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(([^)\s]*)(?:\s+\"[^\"\n]*\")?\)")
_DEFINITION = re.compile(r"^\s{0,3}\[[^\]\n]+\]:\s*(\S+)")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_HEADING = re.compile(r"^(#{1,5}) ")


def _absolute(url: str) -> bool:
    return url.startswith(("http://", "https://", "mailto:", "#"))


def _link(match: re.Match[str]) -> str:
    image, text, url = match.groups()
    if _absolute(url):
        return match.group(0)
    return "" if image else text


def adapt(markdown: str) -> str:
    """Headings one level down, relative links and images dropped (fences left alone)."""
    out = []
    fence: str | None = None
    for line in markdown.splitlines():
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1).startswith(fence):
                fence = None
            out.append(line)
            continue
        if opened:
            fence = opened.group(1)
            out.append(line)
            continue
        definition = _DEFINITION.match(line)
        if definition and not _absolute(definition.group(1)):
            continue
        line = _HEADING.sub(lambda m: "#" + m.group(1) + " ", line)
        out.append(_LINK.sub(_link, line))
    return "\n".join(out)


def include_contributing(markdown: str, page: Page, config: MkDocsConfig) -> str:
    if page.file.src_uri != PAGE or MARKER not in markdown:
        return markdown
    path = Path(config.config_file_path).parent / "CONTRIBUTING.md"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return markdown.replace(MARKER, "")
    full = "## The full guide\n\nFrom `CONTRIBUTING.md` in the repository:\n\n" + adapt(text)
    return markdown.replace(MARKER, full)
