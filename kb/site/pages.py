"""Every generated page of the site, rendered from the loaded cases through jinja2.

`render_site(result)` returns {docs path: Markdown}; the hook turns each into a virtual
MkDocs file. Case text never reaches a template raw: values are escaped to `Md` here and
the Markdown environment escapes anything that is not `Md` on output.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2

from dsl import model as m
from dsl.api import LoadResult
from kb.site import describe, escape, excerpts
from kb.site.escape import Md
from kb.site.excerpts import Excerpt, excerpt

TEMPLATES = Path(__file__).resolve().parent / "templates"
SEVERITY_ORDER = ("critical", "high", "medium", "low")
DIAGNOSE = "kb diagnose --evidence ./logs"
DIAGNOSE_ONE = "kb diagnose --evidence ./logs --case {id}"
MAX_SHARED = 8


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


def tabs(items: list[tuple[str, Md]]) -> Md:
    """Material content tabs; labels are escaped, bodies are Markdown already."""
    out = []
    for label, body in items:
        out.append(f'=== "{escape.line(label)}"\n\n{escape.indent(body)}\n')
    return Md("\n".join(out))


def bilingual(en: Md, zh: Md | None) -> Md:
    """English alone, or "English | 中文" tabs when there is a translation."""
    if zh is None:
        return en
    return tabs([("English", en), ("中文", zh)])


def prose(value: m.Text | None, lang: str = "en") -> Md | None:
    if value is None:
        return None
    raw = value.en if lang == "en" else value.zh
    return escape.text(raw) if raw else None


def case_link(case: m.Case, base: str = "../cases/") -> Md:
    """A link to a case page from a page in another folder (`base=""` from `cases/`)."""
    return Md(f"[{escape.line(case.title.en)}]({base}{quote(case.id, safe='-_.')}.md)")


def _fence(block: m.CodeBlock) -> Md:
    return escape.fence(block.code, block.language)


def excerpt_block(found: Excerpt) -> Md:
    marks = " ".join(str(n) for n in found.marked)
    options = f'linenums="{found.first}"' + (f' hl_lines="{marks}"' if marks else "")
    where = [f"fixture {escape.code(found.fixture)}", f"file {escape.code(found.file)}"]
    if found.rank is not None:
        where.append(f"rank {found.rank}")
    how = {"engine": "", "declared": " (the line the fixture declares)",
           "regex": " (found by the pattern, for display)"}[found.found_by]
    head = f"Seen in the case's evidence: {', '.join(where)}, line {found.line}{how}:"
    return Md(f"{head}\n\n{escape.fence(chr(10).join(found.lines), 'text', options)}")


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

    def source(self, case: m.Case) -> str:
        text = self.sources.get(case.span.path)
        if text is None and case.folder:
            try:
                text = (Path(case.folder) / "case.kb").read_text(encoding="utf-8")
            except OSError:
                text = None
        return text or ""

    def related(self, case: m.Case) -> list[Related]:
        out: list[Related] = []
        seen = {case.id}

        def add(other_id: str, why: str) -> None:
            other = self.by_id.get(other_id)
            if other is not None and other_id not in seen:
                seen.add(other_id)
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
        shared: list[tuple[int, str, str, list[str]]] = []
        for c in self.cases:
            common = sorted(set(case.components) & set(c.components))
            if c.id not in seen and common:
                shared.append((-len(common), c.title.en.lower(), c.id, common))
        for _n, _t, cid, common in sorted(shared)[:MAX_SHARED]:
            add(cid, "also involves " + ", ".join(common))
        return out


# ----------------------------------------------------------------------------- case page


def _glance(case: m.Case, lang: str) -> Md | None:
    zh = lang == "zh"
    pick = (lambda t: t.zh) if zh else (lambda t: t.en)
    seen_items = [pick(s.text) for s in case.symptoms if pick(s.text)]
    if zh and not seen_items and not case.summary.zh:
        return None
    see = (escape.text(seen_items[0]) if seen_items
           else escape.text(pick(case.summary) or case.summary.en))
    summary = [escape.text(case.summary.zh)] if zh and case.summary.zh else []
    if zh and case.title.zh:
        summary.insert(0, Md(f"**{escape.line(case.title.zh)}**"))
    why = prose(case.cause, lang) or escape.text(pick(case.summary) or case.summary.en)
    labels = ("你会看到", "原因", "解决办法") if zh else ("What you see", "Why it happens", "The fix")
    parts = [*summary, f"**{labels[0]}:** {see}", f"**{labels[1]}:** {why}"]
    if case.remedies:
        fixes = [escape.line(pick(r.title) or r.title.en) for r in case.remedies]
        steps = "步骤" if zh else "steps"
        parts.append(f"**{labels[2]}:** " + "; ".join(fixes) + f" ([{steps}](#fix))")
    else:
        parts.append(f"**{labels[2]}:** " + ("暂无已知的修复方法。" if zh else
                                             "no known fix yet; see the cause and references."))
    return Md("\n\n".join(parts))


def _symptoms(case: m.Case, lang: str) -> Md | None:
    items = []
    for s in case.symptoms:
        raw = s.text.zh if lang == "zh" else s.text.en
        if not raw:
            continue
        shows = ", ".join(f"[{escape.code(n)}](#{anchor(n)})" for n in s.evidence)
        label = "依据" if lang == "zh" else "shown by"
        items.append(f"- {escape.line(raw)}" + (f" ({label} {shows})" if shows else ""))
    return Md("\n".join(items)) if items else None


def anchor(query_name: str) -> str:
    return "q-" + "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in query_name)


def _author_words(en: Md | None, zh: Md | None) -> Md | None:
    """The query's own `describe` text, labelled so it is not mistaken for ours."""
    if en is None:
        return None
    label = "*In the case author's words:*"
    if zh is None:
        return Md(f"{label} {en}")
    return Md(f"{label}\n\n{bilingual(en, zh)}")


def _query(case: m.Case, q: m.Query, role: m.Role | None) -> dict[str, Any]:
    role_words = describe.ROLE_WORDS.get(role, "Shown in the symptoms") if role else (
        "Shown in the symptoms")
    found = excerpt(case, q)
    note_en = prose(q.collect_note)
    note_zh = prose(q.collect_note, "zh")
    desc_en = prose(q.description)
    desc_zh = prose(q.description, "zh")
    return {
        "anchor": Md(anchor(q.name)),
        "name": escape.code(q.name),
        "kind": escape.text(describe.KIND_WORDS.get(q.kind, q.kind)),
        "role": escape.text(role_words),
        "sentence": describe.query(q),
        "description": _author_words(desc_en, desc_zh),
        "collect_note": bilingual(note_en, note_zh) if note_en else None,
        "collect": [_fence(c) for c in q.collect],
        "excerpt": excerpt_block(found) if found else None,
    }


def _step(step: m.Step, lang: str) -> Md:
    zh = lang == "zh"
    title = escape.line((step.title.zh if zh else None) or step.title.en)
    body = [f"**{title}**"]
    why = prose(step.why, lang) or (prose(step.why) if zh else None)
    if why:
        body.append(why)
    body += [_fence(c) for c in step.commands]
    if step.alternatives:
        body.append(tabs([(label, _fence(block)) for label, block in step.alternatives]))
    verify = prose(step.verify, lang) or (prose(step.verify) if zh else None)
    if verify or step.verify_commands:
        label = "验证" if zh else "Verify"
        body.append(f"**{label}:** {verify or ''}".rstrip())
        body += [_fence(c) for c in step.verify_commands]
    return Md("\n\n".join(body))


def _remedy(remedy: m.Remedy, lang: str) -> Md:
    steps = []
    if lang == "zh" and remedy.title.zh:
        steps.append(f"**{escape.line(remedy.title.zh)}**")
    for n, step in enumerate(remedy.steps, 1):
        steps.append(f"{n}. " + escape.indent(_step(step, lang)).lstrip())
    return Md("\n\n".join(steps))


def _has_zh(case: m.Case) -> bool:
    texts = [case.title, case.summary, case.cause] + [s.text for s in case.symptoms]
    texts += [r.title for r in case.remedies]
    return any(t is not None and t.zh for t in texts)


def case_context(data: SiteData, case: m.Case, language_page: bool) -> dict[str, Any]:
    zh = _has_zh(case)
    roles = describe.roles(case)
    symptoms_en = _symptoms(case, "en")
    symptoms_zh = _symptoms(case, "zh") if zh else None
    remedies = []
    for r in case.remedies:
        en = _remedy(r, "en")
        remedies.append({
            "title": escape.line(r.title.en),
            "body": bilingual(en, _remedy(r, "zh") if zh else None),
        })
    glance_en = _glance(case, "en") or Md("")
    glance_zh = _glance(case, "zh") if zh else None
    lexer = "kbcase" if lexer_available() else "text"
    related = [{"link": case_link(r.case, ""), "why": escape.text(r.why)}
               for r in data.related(case)]
    return {
        "fm_title": Md(escape.yaml_str(case.title.en)),
        "fm_description": Md(escape.yaml_str(case.summary.en)),
        "fm_tags": [Md(escape.yaml_str(escape.tag(t))) for t in case_tags(case)],
        "id": escape.code(case.id),
        "title": escape.line(case.title.en),
        "summary": escape.text(case.summary.en),
        "badges": Md(html_environment().get_template("badges.html.j2").render(case=case).strip()),
        "glance": bilingual(glance_en, glance_zh),
        "symptoms": bilingual(symptoms_en, symptoms_zh) if symptoms_en else None,
        "clauses": [describe.clause(c) for c in case.condition.clauses],
        "queries": [_query(case, q, roles.get(q.name)) for q in case.queries],
        "cause": bilingual(prose(case.cause) or Md(""), prose(case.cause, "zh"))
        if case.cause else None,
        "remedies": remedies,
        "affected": [escape.code(v) for v in case.affected],
        "fixed": [escape.code(v) for v in case.fixed],
        "references": [escape.link(r, r) for r in case.references],
        "provenance": _provenance(case.provenance),
        "source": escape.fence(data.source(case), lexer, 'linenums="1"'),
        "source_name": escape.code(f"cases/{case.id}/case.kb"),
        "language_page": language_page,
        "related": related,
        "diagnose": escape.fence(DIAGNOSE, "bash"),
        "diagnose_one": escape.fence(DIAGNOSE_ONE.format(id=case.id), "bash"),
    }


def _provenance(p: m.Provenance | None) -> list[Md]:
    if p is None:
        return []
    out = []
    if p.source:
        out.append(Md("Source: " + escape.link(p.source, p.source)))
    if p.date:
        out.append(Md("Date: " + escape.text(p.date)))
    if p.verified_on:
        zh = f" / {escape.line(p.verified_on.zh)}" if p.verified_on.zh else ""
        out.append(Md("Verified on: " + escape.line(p.verified_on.en) + zh))
    if p.authors:
        out.append(Md("Authors: " + ", ".join(escape.line(a) for a in p.authors)))
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
    """(pattern, a real line it matched in the case's fixtures) for each log/stack query."""
    out = []
    for q in case.queries:
        if isinstance(q, m.LogQuery | m.StackQuery):
            pattern = q.pattern if isinstance(q, m.LogQuery) else q.frame
            found = excerpt(case, q)
            example = escape.code(found.matched.strip()) if found and found.matched else None
            out.append((describe.regex(pattern), example))
    return out


def _grouped(cases: Iterable[m.Case], keys: Any) -> list[tuple[Md, list[Md]]]:
    groups: dict[str, list[m.Case]] = defaultdict(list)
    for case in cases:
        for key in keys(case):
            groups[key].append(case)
    return [(escape.line(k), [case_link(c) for c in groups[k]])
            for k in sorted(groups, key=str.lower)]


def index_contexts(data: SiteData) -> dict[str, dict[str, Any]]:
    symptoms = []
    symptoms_zh = []
    for case in data.cases:
        for s in case.symptoms:
            symptoms.append((s.text.en.lower(), escape.line(s.text.en), case_link(case)))
            if s.text.zh:
                symptoms_zh.append((s.text.zh, escape.line(s.text.zh), case_link(case)))
    errors = []
    for case in data.cases:
        for pattern, example in error_strings(case):
            errors.append({"pattern": pattern, "example": example, "case": case_link(case)})
    by_severity = []
    for sev in SEVERITY_ORDER:
        group = [c for c in data.cases if c.severity == sev]
        if group:
            by_severity.append({
                "severity": escape.text(sev.capitalize()),
                "cases": [{"link": case_link(c, ""), "summary": escape.line(c.summary.en),
                           "id": escape.code(c.id),
                           "components": ", ".join(escape.code(x) for x in c.components)}
                          for c in group],
            })
    return {
        "cases/index.md": {"groups": by_severity, "count": len(data.cases)},
        "find/symptoms.md": {
            "symptoms": [(t, link) for _k, t, link in sorted(symptoms, key=lambda s: s[0])],
            "symptoms_zh": [(t, link) for _k, t, link in sorted(symptoms_zh)],
            "errors": errors,
        },
        "find/components.md": {"groups": _grouped(data.cases, lambda c: c.components)},
        "find/hardware.md": {
            "platforms": _grouped(data.cases, lambda c: c.platforms),
            "hardware": _grouped(data.cases, lambda c: c.hardware),
        },
    }


INDEX_TEMPLATES = {
    "cases/index.md": "cases-index.md.j2",
    "find/symptoms.md": "symptoms.md.j2",
    "find/components.md": "components.md.j2",
    "find/hardware.md": "hardware.md.j2",
}


def render_site(result: LoadResult, language_page: bool = False) -> dict[str, str]:
    """{docs path: Markdown} for every generated page.

    `language_page` says whether `reference/language.md` exists, so pages link to it only
    then (a link to a missing page fails a strict build).
    """
    excerpts.clear()
    env = environment()
    data = SiteData(list(result.cases), dict(result.sources))
    pages: dict[str, str] = {}
    case_template = env.get_template("case.md.j2")
    for case in data.cases:
        pages[case_path(case.id)] = case_template.render(**case_context(data, case, language_page))
    for path, context in index_contexts(data).items():
        pages[path] = env.get_template(INDEX_TEMPLATES[path]).render(**context)
    return pages
