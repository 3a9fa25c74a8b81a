"""Real error lines to search for: taken from the stored incidents, not written for the test.

A line qualifies when it is in an incident's machine output (`*.log`, `*.txt`, `*.out`,
`*.err` of a `fixtures/positive/<name>/` folder with an `incident.yaml`) and a catalogue
message (not a context one) matches it. The machine output holds only one Chinese line, so
the Chinese lines people wrote in the incidents' notes that a catalogue phrase (`words`,
`zh`) matches are added, marked as notes. The right pages for a line are the case page of
every incident that holds it, the catalogue section of every message it matches and the
error-code page of every code or well-known message in it.

Those are only five Chinese lines, so the first sentence of every case's Chinese summary
(`summary.zh`, written by the case's authors) is searched too, marked as a summary: the
right page for it is its case's page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from dsl.api import load_cases
from dsl.catalogue.load import load_default
from kb.site import codes

REPO = Path(__file__).resolve().parents[2]
MACHINE_OUTPUT = (".log", ".txt", ".out", ".err")
MAX_LINE = 300  # longer lines are dumps (tensors, environment listings), not error lines
LIMIT = 100  # lines searched: every Chinese and error-code line, then the others spread out
HAN = re.compile(r"[\u4e00-\u9fff]")


@dataclass
class Probe:
    line: str
    cases: set[str] = field(default_factory=set)
    messages: set[str] = field(default_factory=set)  # catalogue message ids
    codes: set[str] = field(default_factory=set)  # error-code page slugs
    source: str = ""  # the first incident file it was taken from
    notes: bool = False  # from the user's notes, not machine output
    summary: bool = False  # the first sentence of a case's `summary.zh`

    @property
    def chinese(self) -> bool:
        return HAN.search(self.line) is not None

    @property
    def has_number(self) -> bool:
        return re.search(r"\d", self.line) is not None

    @property
    def has_code(self) -> bool:
        return bool(self.codes)

    def right(self, path: str) -> bool:
        """Whether a result link's path (and fragment) is a right page for this line."""
        page, _, anchor = path.partition("#")
        page = page.strip("/")
        if page.startswith("cases/") and page.removeprefix("cases/") in self.cases:
            return True
        if page.startswith("find/errors/") and page.removeprefix("find/errors/") in self.codes:
            return True
        for message in self.messages:
            emitter = message.split(".", 1)[0]
            slug = message.replace(".", "-")
            if page == f"messages/{slug}" or (page == f"messages/{emitter}" and anchor == slug):
                return True
        return False


def _code_slugs(line: str) -> set[str]:
    names = set(codes.CODE.findall(line))
    names |= {w for w in codes.WELL_KNOWN if w.lower() in line.lower()}
    return {codes.Code(n, "code").slug for n in names}


def _incidents(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.glob("*/fixtures/positive/*/incident.yaml"))


def probes(root: Path = REPO / "cases", limit: int = LIMIT) -> list[Probe]:
    """The lines, one per distinct set of messages, Chinese and error-code lines first."""
    catalogue = load_default()
    compiled = [
        (msg.id, [re.compile(w.regex) for w in msg.wordings if w.regex])
        for msg in catalogue.messages.values()
        if msg.role != "context"
    ]
    words_zh = [p.pattern for w in catalogue.words.values() for p in w.zh]
    zh_patterns = [re.compile(p) for p in words_zh]
    by_line: dict[str, Probe] = {}
    for folder in _incidents(root):
        case = folder.relative_to(root).parts[0]
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            notes = path.name == "notes.md"
            if path.suffix not in MACHINE_OUTPUT and not notes:
                continue
            for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
                line = raw.strip()
                if not line or len(line) > MAX_LINE:
                    continue
                if line in by_line:
                    by_line[line].cases.add(case)
                    continue
                if notes:
                    if not HAN.search(line) or not any(p.search(line) for p in zh_patterns):
                        continue
                    found: set[str] = set()
                else:
                    found = {i for i, rs in compiled if any(r.search(line) for r in rs)}
                    if not found:
                        continue
                probe = by_line.setdefault(
                    line, Probe(line, source=str(path.relative_to(root)), notes=notes)
                )
                probe.cases.add(case)
                probe.messages |= found
                probe.codes |= _code_slugs(line)
    distinct: dict[frozenset[str], Probe] = {}
    for probe in by_line.values():
        key = frozenset(probe.messages) if probe.messages else frozenset({probe.line})
        distinct.setdefault(key, probe)
    chosen = [p for p in distinct.values() if p.chinese or p.has_code]
    rest = [p for p in distinct.values() if p not in chosen]
    room = max(limit - len(chosen), 0)
    if rest and room:
        step = max(len(rest) / room, 1.0)
        chosen += [rest[int(i * step)] for i in range(min(room, len(rest)))]
    return chosen


def first_sentence(text: str) -> str:
    """A summary's first sentence, its line breaks as the page shows them (spaces)."""
    head = text.strip().split("。", 1)[0]
    return " ".join(line.strip() for line in head.splitlines() if line.strip())[:MAX_LINE]


def summary_probes(root: Path = REPO / "cases") -> list[Probe]:
    """The first sentence of each case's Chinese summary. Its right pages are its case's
    page and, as for a log line, the page of every catalogue message it quotes."""
    catalogue = load_default()
    compiled = [
        (msg.id, [re.compile(w.regex) for w in msg.wordings if w.regex])
        for msg in catalogue.messages.values()
        if msg.role != "context"
    ]
    out = []
    for case in sorted(load_cases([root], with_env=False).cases, key=lambda c: c.id):
        text = case.summary.zh if case.summary is not None else None
        if text and HAN.search(text):
            line = first_sentence(text)
            found = {i for i, rs in compiled if any(r.search(line) for r in rs)}
            out.append(
                Probe(
                    line,
                    cases={case.id},
                    messages=found,
                    codes=_code_slugs(line),
                    source=f"{case.id}/case.kb",
                    summary=True,
                )
            )
    return out
