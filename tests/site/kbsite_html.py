"""Reading built HTML the way a browser would, to find anything a case injected."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

DANGEROUS_TAGS = {"script", "iframe", "object", "embed", "svg", "img", "b", "a", "form"}
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "data", "xlink:href"}


@dataclass
class Finding:
    file: str
    problem: str


@dataclass
class _Scan(HTMLParser):
    file: str
    marker: str
    findings: list[Finding] = field(default_factory=list)
    stack: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        HTMLParser.__init__(self, convert_charrefs=True)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack.append(tag)
        for name, value in attrs:
            value = value or ""
            if name.startswith("on") and self.marker in value:
                self.findings.append(Finding(self.file, f"<{tag} {name}={value!r}>"))
            if name in URL_ATTRIBUTES and value.strip().lower().startswith("javascript:"):
                self.findings.append(Finding(self.file, f"<{tag} {name}={value!r}>"))
            if self.marker in name or (name not in URL_ATTRIBUTES and name.startswith("on")):
                self.findings.append(Finding(self.file, f"<{tag}> has attribute {name!r}"))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if self.stack and self.stack[-1] in ("script", "style") and self.marker in data:
            self.findings.append(Finding(self.file, f"<{self.stack[-1]}> runs {data[:80]!r}"))


def injections(root: Path, marker: str = "alert(") -> list[Finding]:
    """Every script, event handler or javascript: URL carrying `marker` in the built site."""
    out: list[Finding] = []
    for path in sorted(root.rglob("*.html")):
        scan = _Scan(file=str(path.relative_to(root)), marker=marker)
        scan.feed(path.read_text(encoding="utf-8"))
        scan.close()
        out.extend(scan.findings)
    return out


class _Text(HTMLParser):
    def __init__(self, tag: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tag, self.depth, self.parts = tag, 0, []  # type: ignore[var-annotated]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == self.tag:
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == self.tag and self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.parts.append(data)


def text_of(html: str, tag: str) -> str:
    """The text inside every `tag` element, as a browser shows it."""
    parser = _Text(tag)
    parser.feed(html)
    return "".join(parser.parts)
