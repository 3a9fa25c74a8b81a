"""A diagnosis as GitHub-flavoured markdown, for pasting into an issue."""

from __future__ import annotations

import re
from typing import Any

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


_MARKUP = re.compile(r"([\\`*_{}\[\]()#+!|~>-])")


def _text(text: str) -> str:
    """Case text and anything else from strangers, as inert markdown: no HTML, no links, no
    emphasis that the author did not write as text.

    >>> _text("<img src=x onerror=alert(1)> [x](javascript:alert(1)) *b*")
    '&lt;img src=x onerror=alert\\\\(1\\\\)&gt; \\\\[x\\\\]\\\\(javascript:alert\\\\(1\\\\)\\\\) \\\\*b\\\\*'
    """
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MARKUP.sub(r"\\\1", text.replace("\n", " "))


def _code(text: str) -> str:
    """An inline code span no backtick in the text can close early (CommonMark: a longer
    run of backticks, padded with spaces); pipes escaped for tables."""
    text = text.replace("\n", " ").replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    return f"{ticks} {text} {ticks}" if longest else f"`{text}`"


def _lines_table(rows: list[tuple[str, EvidenceLine]]) -> list[str]:
    out = ["| query | where | rank | line |", "|---|---|---|---|"]
    for name, ln in rows:
        rank = "" if ln.rank is None else str(ln.rank)
        out.append(f"| {_text(name)} | {_code(ln.where)} | {rank} | {_code(ln.text[:200])} |")
    return out


def _missing(items: list[Missing]) -> list[str]:
    out = []
    for miss in items:
        out.append(f"- **{_text(miss.query)}**: {_text(miss.description)}")
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
            out.append(
                f"- {_code(v.id)}: {_text(v.title)} (signs: {_text(signs)}) [Case page](<{v.page}>)"
            )
        out.append("")
    if diagnosis.near_misses:
        out += ["### Partly matching", ""]
        for v in diagnosis.near_misses:
            failed = [c.text for c in v.clauses if c.role == "require" and c.truth.value != "true"]
            out.append(
                f"- {_code(v.id)} (score {v.score:.2f}): missing {_text('; '.join(failed) or '-')}"
            )
        out.append("")
    return out


def render_markdown(diagnosis: Diagnosis, kb: KnowledgeBase, facts: Any = None) -> str:
    out = ["## kb diagnose", "", f"Evidence: {_code(diagnosis.evidence_root)}", ""]
    if not diagnosis.matches:
        out += [
            "**No known case is confirmed or likely.**"
            if diagnosis.possible
            else "**No known case matches this evidence.**",
            "",
        ]
        out += _candidates(diagnosis)
        if diagnosis.suspicious:
            out += ["### Most suspicious lines per rank", ""]
            rows = [(f"rank {r}", ln) for r, lines in diagnosis.suspicious.items() for ln in lines]
            out += [*_lines_table(rows), ""]
        out += ["### What to collect next", "", *_missing(diagnosis.next_steps)]
        return "\n".join(out).rstrip() + "\n"
    out += [f"_{_text(line.strip())}_" for line in why_first(diagnosis.ranked)] + [""]
    for i, v in enumerate(diagnosis.matches, 1):
        out.append(f"### {i}. {_text(v.title)} ({_code(v.id)})")
        out.append("")
        culprit = f", culprit rank **{v.culprit_rank}**" if v.culprit_rank is not None else ""
        out.append(
            f"Level **{v.level}**, score **{v.score:.2f}**, confidence "
            f"**{v.confidence}**{culprit}. [Case page](<{v.page}>)"
        )
        out.append("")
        if v.evidence:
            out += ["<details><summary>Evidence</summary>", ""]
            out += _lines_table(v.evidence[:20])
            out += ["", "</details>", ""]
        if v.missing:
            out += ["Missing evidence:", "", *_missing(v.missing), ""]
        if v.against_reasons:
            out += ["Speaks against:", "", *[f"- {_text(r)}" for r in v.against_reasons], ""]
        compiled = kb.get(v.id)
        if compiled is not None and compiled.case.remedies:
            out += ["Remedies:", ""]
            for remedy in compiled.case.remedies:
                out.append(f"1. **{_text(remedy.title.en)}**")
                for step in remedy.steps:
                    out.append(f"   - {_text(step.title.en)}")
                    for cmd in step.commands[:1]:
                        out += ["", *["     " + x for x in _fence(cmd.code, cmd.language)], ""]
            out.append("")
    for d in diagnosis.distinctions:
        out += [
            f"**{_text(d.first)} vs {_text(d.second)}:** {_text(d.explanation)}",
            "",
            *_missing(d.hints),
            "",
        ]
    return "\n".join(out).rstrip() + "\n"
