"""Every generated page of the site, rendered from the loaded cases through jinja2.

`render_site(result)` returns {docs path: Markdown}; the hook turns each into a virtual
MkDocs file. Case text never reaches a template raw: values are escaped to `Md` here and
the Markdown environment escapes anything that is not `Md` on output.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2

from dsl import model as m
from dsl.api import LoadResult
from dsl.catalogue import model as cm
from dsl.catalogue import registry as catalogue_registry
from kb.site import (
    candidates,
    casepage,
    code_ranking,
    codes,
    escape,
    excerpts,
    finders,
    fixture_messages,
    message_pages,
    phases,
    plain,
    seen,
    triage,
)
from kb.site.catalogue_pages import catalogue_pages
from kb.site.escape import Md
from kb.site.excerpts import excerpt
from kb.site.short_titles import CHART_TITLE, short_title  # noqa: F401 (tests read them here)

TEMPLATES = Path(__file__).resolve().parent / "templates"
SEVERITY_ORDER = ("critical", "high", "medium", "low")
DIAGNOSE = "kb diagnose --evidence ./logs"
DIAGNOSE_ONE = "kb diagnose --evidence ./logs --case {id}"
MAX_SHARED = 5
MAX_SHARING = 4  # a symptom more cases show is too common to relate them
MAX_CODE_MESSAGES = 12  # catalogue messages listed on an error code's page


def case_path(case_id: str) -> str:
    """The docs path of a case page; ids are kebab-case, quoting is belt and braces."""
    return f"cases/{quote(case_id, safe='-_.')}.md"


def _finalize(value: Any) -> str:
    """Markdown output: `Md` as it is, everything else escaped as literal text."""
    if isinstance(value, Md):
        return value
    if value is None:
        return ""
    return escape.text(value)


def _lines(items: Iterable[Md]) -> Md:
    return Md("\n".join(items))


def html_environment() -> jinja2.Environment:
    """For the `*.html.j2` parts: jinja2's HTML autoescaping, case values are only text."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )


def environment() -> jinja2.Environment:
    """For the `*.md.j2` pages: anything that is not `Md` is escaped by `_finalize`."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=False,
        finalize=_finalize,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["ind"] = escape.indent
    env.filters["lines"] = _lines
    env.filters["code"] = escape.code
    return env


# ----------------------------------------------------------------------------- pieces


def case_link(case: m.Case, base: str = "../cases/") -> Md:
    """A link to a case page from a page in another folder (`base=""` from `cases/`)."""
    return casepage.case_link(case, base)


# ----------------------------------------------------------------------------- the model


@dataclass
class Related:
    case: m.Case
    why: str


@dataclass
class SiteData:
    """Cases plus the relations between them that no single case file states."""

    cases: list[m.Case]
    sources: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.cases = sorted(self.cases, key=lambda c: (c.title.en.lower(), c.id))
        self.by_id = {c.id: c for c in self.cases}
        self.codes = codes.collect(self.cases)
        specific = [c for c in self.codes if len(c.cases) <= MAX_SHARING]
        self.shared = codes.shared(specific)

    def source(self, case: m.Case) -> str:
        text = self.sources.get(case.span.path)
        if text is None and case.folder:
            try:
                text = (Path(case.folder) / "case.kb").read_text(encoding="utf-8")
            except OSError:
                text = None
        return text or ""

    def related(self, case: m.Case) -> list[Related]:
        """`specializes`/`related` links both ways, then cases sharing a specific symptom."""
        out: list[Related] = []
        seen_ids = {case.id}

        def add(other_id: str, why: str) -> None:
            other = self.by_id.get(other_id)
            if other is not None and other_id not in seen_ids:
                seen_ids.add(other_id)
                out.append(Related(other, why))

        for general in case.specializes:
            add(general, "this case is a special case of it")
        for c in self.cases:
            if case.id in c.specializes:
                add(c.id, "a special case of this one")
        for name in case.related:
            add(name, "related")
        for c in self.cases:
            if case.id in c.related:
                add(c.id, "related")
        common = self.shared.get(case.id, {})
        ranked = sorted(common.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        for other_id, names in ranked[:MAX_SHARED]:
            add(other_id, "also shows " + ", ".join(sorted(names)))
        return out


# ----------------------------------------------------------------------------- case page


def case_context(
    data: SiteData, case: m.Case, language_page: bool, repo_url: str | None = None
) -> dict[str, Any]:
    lexer = "kbcase" if lexer_available() else "text"
    related = [(r.case, r.why) for r in data.related(case)]
    out = casepage.context(
        case, data.by_id, related, data.source(case), lexer, repo_url, language_page
    )
    out["fm_tags"] = [Md(escape.yaml_str(escape.tag(t))) for t in case_tags(case)]
    return out


def case_tags(case: m.Case) -> list[str]:
    """Tags of a page: the case's tags plus its components and platforms, deduplicated."""
    out: dict[str, None] = {}
    for t in [*case.tags, *case.components, *case.platforms]:
        out.setdefault(escape.tag(t), None)
    return list(out)


def lexer_available() -> bool:
    """Whether Pygments knows the case language yet (dsl.lexer, entry point `kbcase`)."""
    try:
        from pygments.lexers import get_lexer_by_name
        from pygments.util import ClassNotFound
    except ModuleNotFoundError:  # pragma: no cover - pygments is a dependency
        return False
    try:
        get_lexer_by_name("kbcase")
    except (ClassNotFound, ImportError, AttributeError):
        return False
    return True


# ----------------------------------------------------------------------------- indexes


def error_strings(case: m.Case) -> list[tuple[Md, Md | None]]:
    """(the message, a real line it matched in the case's fixtures) per signal log query."""
    out = []
    for q in seen.signal_queries(case):
        if isinstance(q, m.LogQuery) and "notes" in q.sources:
            continue
        if isinstance(q, m.LogQuery | m.StackQuery):
            pattern = q.pattern if isinstance(q, m.LogQuery) else q.frame
            found = excerpt(case, q)
            example = escape.code(found.matched.strip()) if found and found.matched else None
            out.append((plain.pattern_md(pattern, limit=2), example))
    return out


def _grouped(cases: Iterable[m.Case], keys: Any) -> list[tuple[Md, list[Md]]]:
    groups: dict[str, list[m.Case]] = defaultdict(list)
    for case in cases:
        for key in keys(case):
            groups[key].append(case)
    return [
        (escape.line(k), [case_link(c) for c in groups[k]]) for k in sorted(groups, key=str.lower)
    ]


def code_path(code: codes.Code) -> str:
    return f"find/errors/{code.slug}.md"


def _short(text: str, limit: int = 100) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + " …"


def _code_context(
    code: codes.Code,
    catalogue: cm.Catalogue,
    by_id: dict[str, m.Case],
    counts: dict[tuple[str, str], tuple[int, int]],
) -> dict[str, Any]:
    """An error code's page: the catalogue's messages for it, then its cases, ranked."""
    found = code_ranking.messages_for(code, catalogue)
    ranked = code_ranking.candidates(code, found, by_id, counts)
    cases = []
    for n, c in enumerate(ranked, 1):
        facts = []
        if c.decisive:
            facts.append("the catalogue names it as the only cause of one of these messages")
        if c.fixtures:
            facts.append(f"printed in {c.printed} of its {c.fixtures} stored real incidents")
        body = [str(escape.text(c.case.summary.en))]
        if facts:
            body += ["", f"*{escape.line('; '.join(facts)).capitalize()}.*"]
        command = casepage.command(c.check.command) if c.check and c.check.command else None
        check = c.check.words if c.check else None
        cases.append(
            {"block": Md(candidates.block(n, c.case, "../../cases/", check, body, command))}
        )
    return {
        "fm_title": Md(escape.yaml_str(code.name)),
        "fm_description": Md(escape.yaml_str(f"Cases that explain {code.name}")),
        "name": escape.code(code.name) if code.kind == "code" else escape.line(code.name),
        "kind": code.kind,
        "ranking": code_ranking.RANKING if found else None,
        "messages": [
            {
                "link": Md(
                    f"[{escape.code(_short(message_pages.headline(msg)))}]"
                    f"(../../{message_pages.message_path(msg.id)})"
                ),
                "means": escape.line(msg.means.en),
                "role": escape.line(msg.role),
            }
            for msg in found[:MAX_CODE_MESSAGES]
        ],
        "more_messages": max(0, len(found) - MAX_CODE_MESSAGES),
        "cases": cases,
    }


def _phase_chart(groups: list[tuple[phases.Phase, list[m.Case]]]) -> Md:
    """A Mermaid flowchart: the phases left to right, each a column of its cases (linked)."""
    lines = [CHART_SPACING, "flowchart LR"]
    for n, (phase, cases) in enumerate(groups):
        lines.append(f'  subgraph P{n}["{_mermaid_text(phase.title)} ({len(cases)})"]')
        lines.append("    direction TB")
        ids = [f"C{n}_{k}" for k in range(len(cases))]
        for cid, case in zip(ids, cases, strict=True):
            lines.append(f'    {cid}("{chart_label(case)}")')
        if not cases:
            lines.append(f'    E{n}("no case yet")')
        for a, b in itertools.pairwise(ids):
            lines.append(f"    {a} ~~~ {b}")
        lines.append("  end")
    lines.append("  " + " --> ".join(f"P{n}" for n in range(len(groups))))
    for n, (_phase, cases) in enumerate(groups):
        for k, case in enumerate(cases):
            href = f"../../cases/{quote(case.id, safe='-_.')}/"
            lines.append(f'  click C{n}_{k} href "{href}" "{_mermaid_text(case.title.en)}"')
    return Md("\n".join(lines))


# Mermaid's default gaps between boxes made the chart ~1,570 px wide, drawn at 0.6 of its
# size in the 938 px article at 1280 px (~9.5 px text); these make it ~1,180 px (~12.7 px)
CHART_SPACING = (
    '%%{init: {"flowchart": {"nodeSpacing": 15, "rankSpacing": 25, "padding": 4, '
    '"diagramPadding": 4}}}%%'
)
CHART_LINE = 22  # characters per line of a chart box: five columns fit 1280 px unshrunk


def chart_label(case: m.Case) -> str:
    """A chart box's label: the short title in lines of about `CHART_LINE` characters. Case
    ids as labels made each column as wide as the longest id, and the five columns shrank
    to ~9 px text at 1280 px."""
    lines: list[str] = []
    for word in _mermaid_text(short_title(case).replace("…", "...")).split():
        if lines and len(lines[-1]) + 1 + len(word) <= CHART_LINE:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(lines)


def _mermaid_text(value: str) -> str:
    """Text for a quoted Mermaid label: only word characters, spaces and `-./()`."""
    return re.sub(r"[^\w .()/-]+", " ", value).strip()


def index_contexts(data: SiteData) -> dict[str, dict[str, Any]]:
    groups = phases.by_phase(data.cases)
    by_severity = []
    for sev in SEVERITY_ORDER:
        group = [c for c in data.cases if c.severity == sev]
        if group:
            by_severity.append(
                {
                    "severity": escape.text(sev.capitalize()),
                    "cases": [
                        {
                            "link": case_link(c, ""),
                            "summary": escape.line(c.summary.en),
                            "id": escape.code(c.id),
                            "components": ", ".join(escape.code(x) for x in c.components),
                        }
                        for c in group
                    ],
                }
            )
    return {
        "cases/index.md": {"groups": by_severity, "count": len(data.cases)},
        "find/symptoms.md": {
            "by_phase_en": finders.symptoms(data.cases, zh=False),
            "by_phase_zh": finders.symptoms(data.cases, zh=True),
            "errors": finders.errors(data.cases, error_strings),
        },
        "find/components.md": {"groups": _grouped(data.cases, lambda c: c.components)},
        "find/hardware.md": {
            "platforms": _grouped(data.cases, lambda c: c.platforms),
            "hardware": _grouped(data.cases, lambda c: c.hardware),
        },
        "find/errors/index.md": {
            "codes": [
                {
                    "link": Md(f"[{escape.line(c.name)}]({c.slug}.md)"),
                    "count": len(c.cases),
                    "kind": c.kind,
                }
                for c in data.codes
            ],
        },
        "find/phases.md": {
            "chart": _phase_chart(groups),
            "phases": [
                {
                    "key": Md(p.key),
                    "title": escape.line(p.title),
                    "title_zh": escape.line(p.title_zh),
                    "cases": [
                        {"link": case_link(c), "summary": escape.line(c.summary.en)} for c in cs
                    ],
                }
                for p, cs in groups
            ],
        },
    }


INDEX_TEMPLATES = {
    "cases/index.md": "cases-index.md.j2",
    "find/symptoms.md": "symptoms.md.j2",
    "find/components.md": "components.md.j2",
    "find/hardware.md": "hardware.md.j2",
    "find/errors/index.md": "errors-index.md.j2",
    "find/phases.md": "phases.md.j2",
}


def render_site(
    result: LoadResult, language_page: bool = False, repo_url: str | None = None
) -> dict[str, str]:
    """{docs path: Markdown} for every generated page.

    `language_page` says whether `reference/language.md` exists, so pages link to it only
    then (a link to a missing page fails a strict build); `repo_url` adds the edit and
    "wrong diagnosis?" links.
    """
    excerpts.clear()
    env = environment()
    data = SiteData(list(result.cases), dict(result.sources))
    pages: dict[str, str] = {}
    case_template = env.get_template("case.md.j2")
    for case in data.cases:
        context = case_context(data, case, language_page, repo_url)
        pages[case_path(case.id)] = case_template.render(**context)
    for path, context in index_contexts(data).items():
        pages[path] = env.get_template(INDEX_TEMPLATES[path]).render(**context)
    catalogue = catalogue_registry.current()
    counts = fixture_messages.counts(data.cases)
    code_template = env.get_template("error-code.md.j2")
    for code in data.codes:
        context = _code_context(code, catalogue, data.by_id, counts)
        pages[code_path(code)] = code_template.render(**context)
    pages.update(catalogue_pages(catalogue, data.cases, counts))
    pages[triage.PATH] = triage.page(data.cases)
    return pages
