"""Turning error lines into log-query patterns: one regex per *kind* of line.

Variable parts (numbers, hex addresses, paths, host placeholders, addresses, ranks) become
classes such as `\\d+` or `0x[0-9a-f]+`; everything else is matched literally, escaped for
both RE2 and the case language's `/…/` literal. Error codes such as `EI0002` stay literal:
they are what makes a line specific. Lines that share a template are grouped and counted.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

MAX_LITERAL_CHARS = 120  # how much of a line's fixed text a pattern covers
MIN_LITERAL_CHARS = 12  # below this a template says too little to be evidence

META = set("\\.^$*+?()[]{}|/")

# (regex finding a variable part, what stands in for it); first match wins at a position.
TOKENS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bhost-\d+\b"), r"[\w.-]+"),
    (re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}\b"), r"\d+\.\d+\.\d+\.\d+"),
    (re.compile(r"\b2001:db8::[0-9a-f]+\b"), r"[0-9a-fA-F:]+"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), r"0x[0-9a-fA-F]+"),
    (re.compile(r"(?:~|\.{1,2})?(?:/[\w.+@-]+){2,}/?"), r"[^\s:]+"),
    (re.compile(r"\b[A-Z]{1,4}\d{3,6}\b"), ""),  # error codes: kept literal
    (re.compile(r"(?i)\b(?:rank|gpu|node|worker|device|local_rank|cuda:)(?=\d)"), ""),
    (re.compile(r"(?<![A-Za-z_])\d+(?:\.\d+)+"), r"\d+(?:\.\d+)+"),
    (re.compile(r"(?<![A-Za-z_])\d+"), r"\d+"),
    (re.compile(r" {2,}"), " +"),
)
# What comes before the message: timestamps, `[rank3]:`, NCCL's `host:pid:tid [dev]`.
PREFIX = re.compile(
    r"^(?:\s*(?:\[rank\d+\]:|\[?\d{4}-\d\d-\d\d[T ][\d:.,]+\]?|\[?\d\d:\d\d:\d\d[\d.,]*\]?|"
    r"[\w.-]+:\d+:\d+ \[\d+\]|\(pid=\d+\)|\[default\d+\]:|\[[EWIF][\d :.]*[\w/]+\.(?:cpp|cc|h|py):\d+\]|"
    r"\[(?:PG \d+ )?Rank \d+\])\s*)+"
)


def escape(text: str) -> str:
    """Literal text for a RE2 pattern inside `/…/`: only true metacharacters are escaped."""
    return "".join("\\" + c if c in META else c for c in text)


@dataclass
class Template:
    pattern: str
    literal_chars: int
    example: str  # the first line seen, for the query's description
    count: int = 0
    files: set[str] = field(default_factory=set)

    @property
    def specificity(self) -> int:
        return self.literal_chars


def _pieces(text: str) -> list[tuple[str, str]]:
    """(literal text, "") or ("", class regex) pieces of one line, left to right."""
    pieces: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        best: tuple[int, int, str] | None = None
        for rx, repl in TOKENS:
            found = rx.search(text, pos)
            if found and found.end() > found.start() and (best is None or found.start() < best[0]):
                best = (found.start(), found.end(), repl)
        if best is None:
            pieces.append((text[pos:], ""))
            break
        start, end, repl = best
        pieces.append((text[pos:start], ""))
        pieces.append(("", repl) if repl else (text[start:end], ""))
        pos = end
    return [p for p in pieces if p != ("", "")]


def template_of(line: str) -> tuple[str, int] | None:
    """(pattern, number of literal characters) for one line, or None when too generic.

    The pattern covers the message up to MAX_LITERAL_CHARS literal characters, counted on
    the template rather than the line, so lines differing only in numbers share a template.
    """
    out: list[str] = []
    literal = 0
    for raw, cls in _pieces(PREFIX.sub("", line.rstrip())):
        if cls:
            out.append(cls)
            continue
        if literal + len(raw) > MAX_LITERAL_CHARS:
            room = MAX_LITERAL_CHARS - literal
            cut = raw.rfind(" ", 0, room)
            raw = raw[: cut if cut > 0 else room]
            out.append(escape(raw))
            literal += len(raw)
            break
        out.append(escape(raw))
        literal += len(raw)
    pattern = "".join(out).strip()
    tails = (" +", r"\d+(?:\.\d+)+", r"\d+", r"[^\s:]+", r"[\w.-]+")
    while pattern.endswith(tails):
        for tail in tails:
            if pattern.endswith(tail):
                pattern = pattern[: -len(tail)].rstrip()
                break
    if literal < MIN_LITERAL_CHARS or not pattern:
        return None
    return pattern, literal


def group_lines(lines: list[tuple[str, str]], limit: int = 8) -> list[Template]:
    """Templates of (file, text) lines: most frequent first, then most specific."""
    found: dict[str, Template] = {}
    for file, text in lines:
        made = template_of(text)
        if made is None:
            continue
        pattern, literal = made
        t = found.setdefault(pattern, Template(pattern, literal, text.strip()))
        t.count += 1
        t.files.add(file)
    ranked = sorted(found.values(), key=lambda t: (-t.count, -t.specificity, t.pattern))
    return ranked[:limit]


def count_kinds(templates: list[Template]) -> Counter[str]:
    return Counter(t.pattern for t in templates)
