"""Writing a case file: the blank scaffold of `kb new`, or a draft from real evidence.

A draft proposes one log query per kind of error line (see `kb.scaffold.templates`), plus
package, hardware and topology queries when those captures exist, and a `match` that
requires the most telling line (never one any failed job prints, such as a traceback
header). Everything it proposes holds on the copied fixture; what is left to write is marked
TODO, and until it is written `kb check` fails and `kb diagnose` leaves the draft out.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import jinja2

from kb.lint.drafts import generic_line_of
from kb.match.diagnose import INTERESTING_PACKAGES
from kb.scaffold.templates import Template, escape, group_lines

MAX_LOG_QUERIES = 8
EXTRA_LINES = re.compile(
    r"NCCL WARN|\bE[A-Z]\d{4}\b|Watchdog caught|ncclRemoteError|"
    r"ncclSystemError|ncclInternalError|ChildFailedError"
)


@dataclass
class DraftQuery:
    name: str
    kind: str
    body: list[str]
    comments: list[str] = field(default_factory=list)
    role: str = "support"


def quote(text: str) -> str:
    """A one-line string literal of the case language."""
    return json.dumps(" ".join(text.split()), ensure_ascii=False)


@lru_cache(maxsize=1)
def _template() -> jinja2.Template:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("kb.scaffold", "templates"),
        autoescape=False,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    return env.get_template("case.kb.j2")


def render(
    case_id: str,
    queries: list[DraftQuery],
    *,
    components: Iterable[str] = (),
    platforms: Iterable[str] = (),
    source: str = "",
) -> str:
    required = [q.name for q in queries if q.role == "require"] or [queries[0].name]
    clauses = [f"require {' or '.join(required)}"]
    clauses += [f"support {q.name}" for q in queries if q.name not in required]
    return _template().render(
        case_id=case_id,
        queries=queries,
        clauses=clauses,
        components=sorted(set(components)),
        platforms=sorted(set(platforms)),
        source=source,
        today=datetime.date.today().isoformat(),
    )


def blank_case(case_id: str) -> str:
    placeholder = DraftQuery(
        "first_error",
        "log",
        [
            'describe "TODO: the error line that shows this failure"',
            "pattern /TODO: replace with a pattern for the error line/",
        ],
        comments=[
            "A log query: one regex per kind of line (RE2: no backreferences, no lookaround)."
        ],
        role="require",
    )
    return render(case_id, [placeholder])


def _usable(t: Template) -> bool:
    from kb.scan.regexes import extract, validate_regex

    return validate_regex(t.pattern) is None and extract(t.pattern, t.example) is not None


def log_queries(facts: Any, texts: dict[str, str]) -> list[DraftQuery]:
    """One query per template of the error and timeout lines, most frequent first."""
    seen: set[tuple[str, int]] = set()
    lines: list[tuple[str, str]] = []

    def add(file: str, line: int, text: str) -> None:
        if (file, line) not in seen:
            seen.add((file, line))
            lines.append((file, text))

    for ev in facts.suspicious:
        add(ev.file, ev.line, ev.text)
    for group in (facts.watchdog_timeouts, facts.mismatches, facts.process_failures):
        for item in group:
            add(item.evidence.file, item.evidence.line, item.evidence.text)
    for file, text in sorted(texts.items()):
        # what the terminal showed: the fixture keeps colour codes as posted, but the reader
        # strips them before matching, so a pattern holding one would never match
        for number, line in enumerate(_without_escapes(text).splitlines(), 1):
            if EXTRA_LINES.search(line):
                add(file, number, line)
    templates = [t for t in group_lines(lines, limit=4 * MAX_LOG_QUERIES) if _usable(t)]
    # A line every failed job prints (a traceback header) would let the draft match any
    # failure: the lines that tell this one apart come first, and q1 is what it requires.
    templates.sort(key=lambda t: generic_line_of(t.pattern) is not None)
    out = []
    for i, t in enumerate(templates[:MAX_LOG_QUERIES], 1):
        where = f"{t.count} line(s) in {len(t.files)} file(s)"
        out.append(
            DraftQuery(
                f"q{i}",
                "log",
                [
                    f"describe {quote('TODO: what this line means (' + where + ')')}",
                    f"pattern /{t.pattern}/",
                ],
                comments=[f"e.g. {t.example[:150]}"],
                role="require" if i == 1 else "support",
            )
        )
    return out


def capture_queries(facts: Any) -> list[DraftQuery]:
    """Package versions, devices and GPU links, when the evidence has them."""
    out = []
    versions: dict[str, str] = {}
    for cap in facts.package_captures:
        for name in INTERESTING_PACKAGES:
            if name in cap.packages:
                versions.setdefault(name, cap.packages[name])
    for name, version in versions.items():
        out.append(
            DraftQuery(
                f"pkg_{name.replace('-', '_')}",
                "package",
                [
                    f"describe {quote(f'TODO: why {name} {version} matters')}",
                    f"requires {quote(f'{name}=={version}')}",
                ],
                comments=["widen to the affected range, e.g. >=1.0,<1.2"],
            )
        )
    if facts.devices:
        kinds = {d.kind for d in facts.devices}
        models = sorted({d.model for d in facts.devices})
        body = [
            f"describe {quote('TODO: the hardware it happens on')}",
            f"device {kinds.pop() if len(kinds) == 1 else 'any'}",
            f"model /{'|'.join(escape(x) for x in models)}/",
            f"min_devices {len(facts.devices)}",
        ]
        out.append(DraftQuery("devices", "hardware", body))
    topo = facts.topology
    if topo is not None and topo.links:
        links = sorted(
            {
                '"NV#"' if re.fullmatch(r"NV\d+", v) else v
                for v in topo.links.values()
                if re.fullmatch(r"NV\d+|PIX|PXB|PHB|NODE|SYS", v)
            }
        )
        if links:
            out.append(
                DraftQuery(
                    "links",
                    "topology",
                    [
                        f"describe {quote('TODO: how the GPUs are linked')}",
                        f"links [{', '.join(links)}]",
                        "pairs any",
                    ],
                )
            )
    return out


def guess_components(facts: Any, texts: dict[str, str]) -> tuple[list[str], list[str]]:
    """Components and platforms the evidence names, to start the metadata from."""
    components: set[str] = set()
    platforms: set[str] = set()
    kinds = facts.kinds()
    blob = "\n".join(texts.values())
    if "nccl" in kinds or "NCCL" in blob:
        components.add("nccl")
        platforms.add("cuda")
    if "plog" in kinds or "HCCL" in blob:
        components.add("hccl")
        platforms.add("ascend")
    for cap in facts.package_captures:
        components.update(
            n
            for n in ("torch", "torch-npu", "accelerate", "deepspeed", "transformers")
            if n in cap.packages
        )
    if "ProcessGroupNCCL" in blob or "torch.distributed" in blob:
        components.add("torch")
    return sorted(components), sorted(platforms)


def draft_from_fixture(
    case_id: str, fixture: str, texts: dict[str, str], source: str = ""
) -> tuple[str, list[DraftQuery]]:
    """The draft case text for a fixture folder already redacted and written to disk."""
    from kb.evidence.reader import read_evidence

    facts = read_evidence(fixture, workers=1).facts
    queries = log_queries(facts, texts) + capture_queries(facts)
    components, platforms = guess_components(facts, texts)
    if not queries:
        return blank_case(case_id), []
    return render(
        case_id, queries, components=components, platforms=platforms, source=source
    ), queries


def _without_escapes(text: str) -> str:
    from kb.evidence.ansi import strip_ansi

    raw = text.encode("utf-8", "surrogateescape")
    return strip_ansi(raw).decode("utf-8", "surrogateescape")
