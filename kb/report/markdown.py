"""A diagnosis as GitHub-flavoured markdown, for pasting into an issue."""

from __future__ import annotations

from dsl.compiler import KnowledgeBase
from kb.evidence.facts import EvidenceLine
from kb.match.diagnose import Diagnosis
from kb.match.results import Missing
from kb.report.text import why_first


def _fence(text: str, lang: str = "") -> list[str]:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return [f"{ticks}{lang}", text, ticks]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _lines_table(rows: list[tuple[str, EvidenceLine]]) -> list[str]:
    out = ["| query | where | rank | line |", "|---|---|---|---|"]
    for name, ln in rows:
        rank = "" if ln.rank is None else str(ln.rank)
        out.append(f"| {_cell(name)} | `{_cell(ln.where)}` | {rank} | `{_cell(ln.text[:200])}` |")
    return out


def _missing(items: list[Missing]) -> list[str]:
    out = []
    for miss in items:
        out.append(f"- **{miss.query}**: {miss.description}")
        if miss.commands:
            out += ["", *["  " + x for x in _fence("\n".join(miss.commands), "bash")], ""]
    return out


def _candidates(diagnosis: Diagnosis) -> list[str]:
    """The weaker candidates, as the text report lists them: possible, then partly matching."""
    out: list[str] = []
    if diagnosis.possible:
        out += ["### Possible, from weaker signs", ""]
        for v in diagnosis.possible:
            signs = ", ".join(dict.fromkeys(name for name, _ in v.evidence)) or "weaker signs"
            out.append(f"- `{v.id}`: {v.title} (signs: {signs}) [Case page]({v.page})")
        out.append("")
    if diagnosis.near_misses:
        out += ["### Partly matching", ""]
        for v in diagnosis.near_misses:
            failed = [c.text for c in v.clauses if c.role == "require" and c.truth.value != "true"]
            out.append(f"- `{v.id}` (score {v.score:.2f}): missing {'; '.join(failed) or '-'}")
        out.append("")
    return out


def render_markdown(diagnosis: Diagnosis, kb: KnowledgeBase) -> str:
    out = ["## kb diagnose", "", f"Evidence: `{diagnosis.evidence_root}`", ""]
    if not diagnosis.matches:
        out += ["**No known case is confirmed or likely.**" if diagnosis.possible
                else "**No known case matches this evidence.**", ""]
        out += _candidates(diagnosis)
        if diagnosis.suspicious:
            out += ["### Most suspicious lines per rank", ""]
            rows = [(f"rank {r}", ln) for r, lines in diagnosis.suspicious.items() for ln in lines]
            out += [*_lines_table(rows), ""]
        out += ["### What to collect next", "", *_missing(diagnosis.next_steps)]
        return "\n".join(out).rstrip() + "\n"
    out += [f"_{line.strip()}_" for line in why_first(diagnosis.ranked)] + [""]
    for i, v in enumerate(diagnosis.matches, 1):
        out.append(f"### {i}. {v.title} (`{v.id}`)")
        out.append("")
        culprit = f", culprit rank **{v.culprit_rank}**" if v.culprit_rank is not None else ""
        out.append(f"Level **{v.level}**, score **{v.score:.2f}**, confidence "
                   f"**{v.confidence}**{culprit}. [Case page]({v.page})")
        out.append("")
        if v.evidence:
            out += ["<details><summary>Evidence</summary>", ""]
            out += _lines_table(v.evidence[:20])
            out += ["", "</details>", ""]
        if v.missing:
            out += ["Missing evidence:", "", *_missing(v.missing), ""]
        if v.against_reasons:
            out += ["Speaks against:", "", *[f"- {r}" for r in v.against_reasons], ""]
        compiled = kb.get(v.id)
        if compiled is not None and compiled.case.remedies:
            out += ["Remedies:", ""]
            for remedy in compiled.case.remedies:
                out.append(f"1. **{remedy.title.en}**")
                for step in remedy.steps:
                    out.append(f"   - {step.title.en}")
                    for cmd in step.commands[:1]:
                        out += ["", *["     " + x for x in _fence(cmd.code, cmd.language)], ""]
            out.append("")
    for d in diagnosis.distinctions:
        out += [f"**{d.first} vs {d.second}:** {d.explanation}", "", *_missing(d.hints), ""]
    return "\n".join(out).rstrip() + "\n"
