"""A case page in the order a person with a failing job needs it.

Title and summary, a metadata box, what you see (the real lines), a quick check, the fix,
the look-alikes ("Not this case if…"), then folded: how kb decides and the case file;
references and related cases last. Every value is escaped here (`kb.site.escape`) or is
HTML escaped by the module that builds it; the template only places them.
"""

from __future__ import annotations

import html
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from dsl import model as m
from kb.match.condition import positive_refs
from kb.site import commands, describe, escape, excerpts, messages, plain, references, seen
from kb.site.escape import Md
from kb.site.near_misses import MAX_FIXTURE_FILES, near_miss_texts

REPORT_TEMPLATE = "wrong-diagnosis.yml"
EDIT_BRANCH = "main"


def zh_block(body: Md) -> Md:
    """Chinese text marked `lang="zh"` (md_in_html keeps the Markdown inside working)."""
    return Md(f'<div lang="zh" markdown="1">\n\n{body}\n\n</div>')


def tabs(items: list[tuple[str, Md]]) -> Md:
    """Material content tabs; labels are ours, bodies are Markdown already."""
    return Md("\n".join(f'=== "{label}"\n\n{escape.indent(body)}\n' for label, body in items))


def bilingual(en: Md, zh: Md | None) -> Md:
    """English alone, or English and 中文 tabs, the Chinese one marked as Chinese."""
    if zh is None:
        return en
    return tabs([("English", en), ("中文", zh_block(zh))])


def prose(value: m.Text | None, lang: str = "en") -> Md | None:
    if value is None:
        return None
    raw = value.en if lang == "en" else value.zh
    return escape.text(raw) if raw else None


def plain_title(value: str) -> str:
    """A title for places that show text only (nav, browser tab, search): no backticks."""
    return value.replace("`", "")


def has_zh(case: m.Case) -> bool:
    texts = [case.title, case.summary, case.cause] + [s.text for s in case.symptoms]
    texts += [r.title for r in case.remedies]
    return any(t is not None and t.zh for t in texts)


def case_href(case_id: str, base: str = "") -> str:
    return f"{base}{quote(case_id, safe='-_.')}.md"


def case_link(case: m.Case, base: str = "") -> Md:
    return Md(f"[{escape.line(case.title.en)}]({case_href(case.id, base)})")


# ----------------------------------------------------------------------------- metadata


@dataclass(frozen=True)
class Status:
    real_reports: int
    known_gaps: int

    def words(self) -> str:
        if self.real_reports:
            n = self.real_reports
            text = f"confirmed on {n} real report{'s' if n != 1 else ''}"
        else:
            text = "built from reproductions, no real report yet"
        if self.known_gaps:
            text += f"; {self.known_gaps} known gap{'s' if self.known_gaps != 1 else ''}"
        return text


def status(case: m.Case) -> Status:
    """Real reports are positive fixtures with an `incident.yaml`; gaps are `todo` blocks."""
    real = 0
    if case.folder:
        root = Path(case.folder) / "fixtures" / "positive"
        try:
            folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink())
        except OSError:
            folders = []
        real = sum(1 for p in folders[:MAX_FIXTURE_FILES] if (p / "incident.yaml").is_file())
    gaps = sum(1 for f in case.fixtures if f.todo)
    return Status(real, gaps)


def _codes(values: list[str]) -> str:
    return ", ".join(f"<code>{html.escape(v)}</code>" for v in values)


def meta_box(case: m.Case) -> Md:
    """The metadata box as a raw HTML block; every value is HTML escaped."""
    rows: list[tuple[str, str]] = []
    sev = html.escape(case.severity)
    rows.append(("Severity", f'<span class="kb-badge kb-severity kb-severity-{sev}">{sev}</span>'))
    rows.append(("Platforms", html.escape(", ".join(case.platforms)) or "any"))
    rows.append(("Hardware", html.escape(", ".join(case.hardware)) or "any"))
    if case.affected or case.fixed:
        rows.append(("Affected versions", _codes(case.affected) or "not recorded"))
        rows.append(("Fixed in / known good", _codes(case.fixed) or "no fixed version yet"))
    else:
        rows.append(("Versions", "not tied to a version"))
    p = case.provenance
    rows.append(("Last verified", html.escape(p.date) if p and p.date else "not recorded"))
    rows.append(("Status", html.escape(status(case).words())))
    cells = "".join(f"<div><dt>{k}</dt><dd>{v}</dd></div>" for k, v in rows)
    return Md(f'<dl class="kb-meta">{cells}</dl>')


# ----------------------------------------------------------------------------- sections


HAN = re.compile(r"[\u3400-\u9fff]")
FALLBACK = '<span class="kb-fallback">（英文原文）</span>'  # labels English in a Chinese tab


def fallback(text: Md) -> Md:
    """English shown in a Chinese tab because the case has no Chinese for it: labelled."""
    return Md(f"{FALLBACK} {text}")


def symptoms(case: m.Case, lang: str) -> Md | None:
    items = []
    for s in case.symptoms:
        raw = s.text.zh if lang == "zh" else s.text.en
        if raw and lang == "zh" and not HAN.search(raw):
            # a Chinese symptom that is the message as printed: shown as the message
            items.append(f"- {escape.code(raw)}")
        elif raw:
            items.append(f"- {escape.line(raw)}")
    return Md("\n".join(items)) if items else None


def quick_check(case: m.Case, lines: list[seen.SeenLine]) -> Md:
    """`kb diagnose` for this case and, when a real line is known, a grep for its words."""
    commands = [
        f"kb diagnose --evidence ./logs --case {case.id}",
        f"# prints: Most likely: {case.id} (confirmed, …)",
    ]
    phrase = _grep_phrase(case, lines)
    if phrase:
        commands += [f"grep -rnF {shlex.quote(phrase)} ./logs  # finds the line shown above"]
    out = [
        '<div class="kb-wrap" markdown="1">',
        "",
        escape.fence("\n".join(commands), "bash"),
        "",
        "</div>",
    ]
    return Md("\n".join(out))


def _grep_phrase(case: m.Case, lines: list[seen.SeenLine]) -> str:
    """The longest plain-text run of the first line's pattern that is in that line."""
    if not lines:
        return ""
    first = lines[0]
    q = {q.name: q for q in case.queries}.get(first.query)
    pattern = getattr(q, "pattern", None) or getattr(q, "frame", None)
    runs = messages.literal_runs(pattern.pattern) if isinstance(pattern, m.Regex) else []
    present = [_whole_words(r, first.text) for r in runs if r in first.text and "\n" not in r]
    return max(present, key=len, default="")[:120]


def _whole_words(run: str, text: str) -> str:
    """`run` without a word it only starts or ends in the middle of (as found in `text`)."""
    at = text.index(run)
    if at > 0 and text[at - 1].isalnum() and run[:1].isalnum():
        run = run.split(" ", 1)[1] if " " in run else ""
    end = text.index(run) + len(run) if run else 0
    if run and end < len(text) and text[end].isalnum() and run[-1:].isalnum():
        run = run.rsplit(" ", 1)[0] if " " in run else ""
    return run.strip()


def _step(step: m.Step, lang: str) -> Md:
    zh = lang == "zh"
    title = escape.line((step.title.zh if zh else None) or step.title.en)
    if zh and not step.title.zh:
        title = fallback(title)
    body = [f"**{title}**"]
    why = prose(step.why, lang)
    if why is None and zh and prose(step.why) is not None:
        why = fallback(Md(prose(step.why) or ""))
    if why:
        body.append(why)
    body += [command(c) for c in step.commands]
    if step.alternatives:
        body.append(tabs(alternatives(step, lang)))
    verify = prose(step.verify, lang)
    if verify is None and zh and prose(step.verify) is not None:
        verify = fallback(Md(prose(step.verify) or ""))
    if verify or step.verify_commands:
        label = "验证" if zh else "Verify"
        body.append(f"**{label}:** {verify or ''}".rstrip())
        body += [command(c) for c in step.verify_commands]
    return Md("\n\n".join(body))


def alternatives(step: m.Step, lang: str) -> list[tuple[str, Md]]:
    """A step's options as tabs. The Chinese tab labels each with its `label.zh`; an option
    without one is "做法 N" (a tab label cannot hold a labelled English fallback), its English
    label, marked as the original, above its command, so no English sentence is a tab label."""
    out: list[tuple[str, Md]] = []
    labels_zh = step.alternative_labels_zh
    for n, (label, block) in enumerate(step.alternatives, 1):
        zh = labels_zh[n - 1] if lang == "zh" and n <= len(labels_zh) else None
        if lang != "zh":
            out.append((escape.line(label), command(block)))
        elif zh:
            out.append((escape.line(zh), command(block)))
        else:
            out.append((f"做法 {n}", Md(f"{fallback(escape.line(label))}\n\n{command(block)}")))
    return out


def command(block: m.CodeBlock) -> Md:
    """A command block as it is pasted: placeholders as shell variables (`kb.site.commands`)."""
    return escape.fence(commands.safe(block.code, block.language), block.language)


def first_command(r: m.Remedy) -> m.CodeBlock | None:
    """The remedy's first command block: its first step's, else its first alternative's."""
    for step in r.steps:
        if step.commands:
            return step.commands[0]
        if step.alternatives:
            return step.alternatives[0][1]
    return None


def fix_box(case: m.Case) -> Md | None:
    """The first remedy's title and first command, right under the summary: a reader whose
    job just hung sees what to do on the first screen; every step and its check follow in
    "Fix" below."""
    if not case.remedies:
        return None
    r = case.remedies[0]
    out = ['<div class="kb-fix-first" id="fix-first" markdown="1">', ""]
    out.append(f"**Fix first:** {escape.line(r.title.en)}")
    if r.title.zh:
        out[-1] += f'<br><span lang="zh">修复：{escape.line(r.title.zh)}</span>'
    out.append("")
    block = first_command(r)
    if block is not None:
        out += [command(block), ""]
    more = len(case.remedies) - 1
    also = f" ({more} more fix{'es' if more > 1 else ''})" if more else ""
    out += [f"[Every step and how to verify it{also} ↓](#fix)", "", "</div>"]
    return Md("\n".join(out))


def remedy(r: m.Remedy, lang: str) -> Md:
    """A remedy's steps; the Chinese one opens with the remedy's Chinese title (the heading
    above the tabs is English)."""
    steps = []
    if lang == "zh":
        title = escape.line(r.title.zh) if r.title.zh else fallback(escape.line(r.title.en))
        steps.append(f"**修复：{title}**")
    for n, step in enumerate(r.steps, 1):
        steps.append(f"{n}. " + escape.indent(_step(step, lang)).lstrip())
    return Md("\n\n".join(steps))


# ----------------------------------------------------------------------------- look-alikes


def rule_out_queries(case: m.Case) -> list[m.Query]:
    """The queries whose presence rules the case out: named in a `rule_out` clause, not
    under a `not` there (`rule_out x and not y`: y speaks for the case), and not needed
    by any clause that speaks for it."""
    speaks_for: set[str] = set()
    against: dict[str, None] = {}
    for clause in case.condition.clauses:
        for name, negated in positive_refs(clause.expr):
            if clause.role is m.Role.RULING_OUT and not negated:
                against[name] = None
            elif clause.role is not m.Role.RULING_OUT and not negated:
                speaks_for.add(name)
    by_name = {q.name: q for q in case.queries}
    return [by_name[n] for n in against if n not in speaks_for and n in by_name]


def look_alikes(case: m.Case, by_id: dict[str, m.Case]) -> list[Md]:
    """One item per `rule_out` query and per related case, each linking the case it is."""
    items: list[Md] = []
    linked: set[str] = set()
    negatives = [(cid, text) for cid, text in near_miss_texts(case) if cid in by_id]
    for q in rule_out_queries(case):
        if isinstance(q, m.LogQuery) and "notes" in q.sources:
            continue  # about the reporter's words; a reader's own logs cannot show it
        words = plain.author_or_sentence(q)
        pattern, _globs = excerpts.display_pattern(q)
        target = None
        if pattern is not None:
            for cid, text in negatives:
                try:
                    if pattern.search(text):
                        target = by_id[cid]
                        break
                except (RecursionError, ValueError):
                    continue
        if target is not None:
            linked.add(target.id)
            items.append(Md(f"{words}: it is rather {case_link(target)}"))
        else:
            items.append(Md(f"{words}"))
    for other_id in [*case.related, *case.specializes]:
        other = by_id.get(other_id)
        if other is None or other.id in linked or other.id == case.id:
            continue
        linked.add(other.id)
        hint = other.symptoms[0].text.en if other.symptoms else other.summary.en
        items.append(Md(f"you see {escape.line(hint)}: see {case_link(other)}"))
    return items


# ----------------------------------------------------------------------------- how kb decides


ROLE_PLAIN = {
    m.Role.REQUIRED: "It must see",
    m.Role.LIKELY: "Enough to call it likely",
    m.Role.POSSIBLE: "Enough to call it possible",
    m.Role.SUPPORTING: "More likely with",
    m.Role.RULING_OUT: "Ruled out by",
}


def decides(case: m.Case) -> Md:
    """The condition in plain words: which evidence, in which role; no ids or weights."""
    by_name = {q.name: q for q in case.queries}
    groups: dict[m.Role, list[str]] = {}
    for clause in case.condition.clauses:
        names = sorted(describe.refs(clause.expr))
        words = "; ".join(str(plain.author_or_sentence(by_name[n])) for n in names if n in by_name)
        if words:
            groups.setdefault(clause.role, []).append(words)
    out = []
    for role in (
        m.Role.REQUIRED,
        m.Role.LIKELY,
        m.Role.POSSIBLE,
        m.Role.SUPPORTING,
        m.Role.RULING_OUT,
    ):
        for words in groups.get(role, []):
            out.append(f"- **{ROLE_PLAIN[role]}:** {words}")
    return Md("\n".join(out))


def decides_details(case: m.Case) -> Md:
    """The same with query names and weights, for readers of the case file."""
    out = [f"- {describe.clause(c)}" for c in case.condition.clauses]
    out.append("")
    for q in case.queries:
        out.append(
            f"- {escape.code(q.name)} ({describe.kind_words().get(q.kind, q.kind)}): "
            f"{plain.sentence(q)}"
        )
    return Md("\n".join(out))


# ----------------------------------------------------------------------------- links


def edit_url(repo_url: str, case_id: str) -> str:
    """The repository's editor on the case file."""
    return f"{repo_url.rstrip('/')}/edit/{EDIT_BRANCH}/cases/{quote(case_id, safe='-_.')}/case.kb"


def report_url(repo_url: str, case: m.Case) -> str:
    """A new "Wrong diagnosis" issue with the case already filled in."""
    query = urlencode(
        {"template": REPORT_TEMPLATE, "title": f"[wrong diagnosis]: {case.id}", "got": case.id}
    )
    return f"{repo_url.rstrip('/')}/issues/new?{query}"


def provenance(p: m.Provenance | None) -> list[Md]:
    if p is None:
        return []
    out = []
    if p.source:
        urls = references.urls(p.source)
        if urls:
            out.append(Md("Source: " + ", ".join(references.reference(u) for u in urls)))
    if p.verified_on:
        out.append(Md("Verified on: " + escape.line(p.verified_on.en)))
    if p.authors:
        out.append(Md("Authors: " + ", ".join(escape.line(a) for a in p.authors)))
    return out


# ----------------------------------------------------------------------------- the page


def context(
    case: m.Case,
    by_id: dict[str, m.Case],
    related: list[tuple[m.Case, str]],
    source: str,
    lexer: str,
    repo_url: str | None,
    language_page: bool,
) -> dict[str, Any]:
    zh = has_zh(case)
    lines = seen.seen_lines(case, limit=2)
    summary_en = escape.text(case.summary.en)
    summary_zh = prose(case.summary, "zh") if zh else None
    symptoms_en = symptoms(case, "en")
    symptoms_zh = symptoms(case, "zh") if zh else None
    if summary_zh is not None and symptoms_zh is not None:
        summary_zh = Md(f"{summary_zh}\n\n**你会看到：**\n\n{symptoms_zh}")
    return {
        "fm_title": Md(escape.yaml_str(plain_title(case.title.en))),
        "fm_description": Md(escape.yaml_str(case.summary.en)),
        "title": escape.line(case.title.en),
        "title_zh": escape.line(case.title.zh) if zh and case.title.zh else None,
        "id": escape.code(case.id),
        "summary": bilingual(summary_en, summary_zh),
        "fix_first": fix_box(case),
        "meta": meta_box(case),
        "symptoms": symptoms_en,
        "seen": seen.html_lines(lines) if lines else None,
        "quick_check": quick_check(case, lines),
        "remedies": [
            {
                "title": escape.line(r.title.en),
                "body": bilingual(remedy(r, "en"), remedy(r, "zh") if zh else None),
            }
            for r in case.remedies
        ],
        "look_alikes": look_alikes(case, by_id),
        "cause": bilingual(prose(case.cause) or Md(""), prose(case.cause, "zh"))
        if case.cause
        else None,
        "decides": decides(case),
        "decides_details": decides_details(case),
        "source": escape.fence(source, lexer, 'linenums="1"'),
        "source_name": escape.code(f"cases/{case.id}/case.kb"),
        "language_page": language_page,
        "references": [references.reference(r) for r in case.references],
        "provenance": provenance(case.provenance),
        "related": [{"link": case_link(c), "why": escape.text(why)} for c, why in related],
        "edit_url": Md(edit_url(repo_url, case.id)) if repo_url else None,
        "report_url": Md(report_url(repo_url, case)) if repo_url else None,
    }
