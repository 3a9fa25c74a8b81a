"""A diagnosis as GitHub-flavoured markdown, for pasting into an issue.

The same report as the text one (kb/report/model.py): the answer, why, the first fix, the next
command, then every candidate with its condition in words, its evidence, what would confirm
it apart from what could rule it out, and its fixes with their verify steps. A command block
inside a list item is indented line by line, so CommonMark and GitHub keep it in the item.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from kb.evidence.inputs import shown_name
from kb.evidence.lazy_pattern import lazy
from kb.match.diagnose import Diagnosis
from kb.report.model import CLAUSE_WORDS, STATE_WORDS, Ask, Candidate, Fix, Report, build
from kb.report.shown_path import shown_command
from kb.report.terminal import evidence_for_terminal

if TYPE_CHECKING:  # a warm run reports from the snapshot's records (kb.cache.records)
    from dsl.compiler import KnowledgeBase


def _fence(text: str, lang: str = "", indent: str = "") -> list[str]:
    """A fenced block, every line of it indented to sit inside a list item. Its lines come
    from a case pack (commands), so no control character stays live in them either."""
    ticks = "```"
    while ticks in text:
        ticks += "`"
    body = [f"{indent}{_one_line(line)}" if line else "" for line in text.splitlines()]
    return ["", f"{indent}{ticks}{lang}", *body, f"{indent}{ticks}", ""]


_MARKUP = lazy(r"([\\`*_{}\[\]()#+!|~>-])")
# every character markdown may read as a line end (CR alone ends a line in CommonMark) or a
# terminal as a control: one inline value must stay one line of inert text
_BREAKS = lazy(r"[\x00-\x1f\x7f\x85\u2028\u2029]")


def _one_line(text: str) -> str:
    """`text` as one line with nothing live: line breakers and C0 controls become spaces, and
    what is left (C1 controls such as `\\x9b`, the one-byte ESC [, and bidi overrides such as
    U+202E) is shown as `\\xNN` / `\\uNNNN`, as the terminal report shows it."""
    return evidence_for_terminal(_BREAKS.sub(" ", text))


def _text(text: str) -> str:
    """Case text and anything else from strangers, as inert markdown: no HTML, no links, no
    emphasis that the author did not write as text.

    >>> _text("<img src=x onerror=alert(1)> [x](javascript:alert(1)) *b*")
    '&lt;img src=x onerror=alert\\\\(1\\\\)&gt; \\\\[x\\\\]\\\\(javascript:alert\\\\(1\\\\)\\\\) \\\\*b\\\\*'
    """
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MARKUP.sub(r"\\\1", _one_line(text))


def _code(text: str) -> str:
    """An inline code span no backtick in the text can close early (CommonMark: a longer
    run of backticks, padded with spaces); pipes escaped for tables."""
    text = _one_line(text).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    return f"{ticks} {text} {ticks}" if longest else f"`{text}`"


def _asks(items: list[Ask]) -> list[str]:
    out = []
    for ask in items:
        apart = (
            f" (tells apart {', '.join(_code(c) for c in ask.cases)})" if len(ask.cases) > 1 else ""
        )
        out.append(f"- {_text(ask.what)}{apart}")
        if ask.note:
            out += ["", f"  {_text(ask.note)}"]
        for cmd in ask.commands:
            out += _fence(cmd, "bash", "  ")
    return [*out, ""]


def _fixes(fixes: list[Fix]) -> list[str]:
    out = []
    for i, fix in enumerate(fixes, 1):
        out.append(f"{i}. **{_text(fix.title)}**")
        for step in fix.steps:
            notes = ""
            if step.tried is not None:
                notes = f" (your notes say this was tried: {_code(step.tried.where)})"
            elif step.other_platform:
                notes = " (for the other platform)"
            out += ["", f"   - {_text(step.title)}{notes}"]
            if step.why:
                out += ["", f"     {_text(step.why)}"]
            for cmd in step.commands:
                out += _fence(cmd, "bash", "     ")
            if step.verify:
                out += ["", f"     Verify: {_text(step.verify)}"]
            for cmd in step.verify_commands:
                out += _fence(cmd, "bash", "     ")
        out.append("")
    return out


def _candidate(index: int, c: Candidate) -> list[str]:
    v = c.verdict
    out = [f"### {index}. {_text(v.title)} ({_code(v.id)})", ""]
    culprit = f", culprit rank **{c.culprit}**" if c.culprit is not None else ""
    out += [
        f"Level **{c.level_words}**, confidence **{v.confidence}**{culprit}. "
        f"[Case page](<{v.page}>)",
        "",
    ]
    if v.stopped:  # why the confidence ladder kept it at this level
        out += [f"Why this level: {_text(v.stopped)}", ""]
    if c.needs:
        out += ["What it takes:", ""]
        out += [
            f"- {CLAUSE_WORDS.get(n.role, n.role)}: {_text(n.words)} ({STATE_WORDS[n.state]})"
            for n in c.needs
        ]
        out.append("")
    if c.shown:
        out += ["<details><summary>Evidence</summary>", ""]
        out += ["| query | where | rank | line |", "|---|---|---|---|"]
        for item in c.shown[:20]:
            ln = item.line
            rank = "" if ln.rank is None or ln.rank < 0 else str(ln.rank)
            shows = _text("; ".join(item.shows))
            out.append(f"| {shows} | {_code(ln.where)} | {rank} | {_code(ln.text[:200])} |")
        out += ["", "</details>", ""]
    if c.against:
        out += ["Speaks against:", "", *[f"- {_text(r)}" for r in c.against], ""]
    if c.confirm:
        out += ["To confirm it, collect:", "", *_asks(c.confirm)]
    if c.helps:
        out += ["Would make it more or less likely, collect:", "", *_asks(c.helps)]
    if c.rule_out:
        out += ["Could rule it out, collect:", "", *_asks(c.rule_out)]
    if c.ask_user:
        out += ["Only you can say (add it to your notes):", ""]
        out += [*[f"- {_text(w)}" for w in c.ask_user], ""]
    if c.fixes:
        out += ["Remedies:", "", *_fixes(c.fixes)]
    return out


def _head(r: Report, diagnosis: Diagnosis) -> list[str]:
    out = []
    if r.state == "empty" and r.skipped:
        out += [
            f"**Nothing could be read in {_code(shown_name(r.root))}: every file was skipped.**",
            "",
        ]
        out += [f"- {_code(path)}: {_text(reason)}" for path, reason in r.skipped]
        out.append("")
    elif r.state == "empty":
        out += [f"**This folder is empty: nothing was read in {_code(shown_name(r.root))}.**", ""]
    elif r.state == "match":
        c = r.candidates[0]
        out += [
            f"**Most likely: {_code(c.verdict.id)}, {c.level_words}.** {_text(c.verdict.title)}",
            "",
        ]
    elif r.state == "possible":
        out += ["**No known case is confirmed or likely.**", ""]
    else:
        out += ["**No known case matches this evidence.**", ""]
    if r.known_messages:  # kept only when no case reached a level on its own clauses
        out += ["But these lines are messages the catalogue knows:", ""]
        for k in r.known_messages[:3]:
            who = ", ".join(_code(c) for c in k.causes if c != "unknown")
            if "unknown" in k.causes:
                who = f"{who} or a cause no case covers" if who else "causes no case covers"
            out += [
                f"- {_code(k.line.where)}: {_code(k.line.text.strip())} ({_code(k.id)}): "
                f"{_text(k.means)} Printed by: {who}.",
            ]
        out.append("")
    if r.state != "empty":
        out += [f"Why: {_text(r.why)}", ""]
        if r.ranking:
            out += [f"_{_text(r.ranking)}_", ""]
    if r.first_fix is not None:
        label = "Fix first" if r.state == "match" else "Fix, if it is this case"
        out += [f"**{label}: {_text(r.first_fix.title)}** (the steps are below)", ""]
    out += [
        f"**Next:** {_text(r.next_why)}",
        *_fence(shown_command(r.next_command, r.root), "bash"),
    ]
    return out


def render_markdown(diagnosis: Diagnosis, kb: KnowledgeBase, facts: Any = None) -> str:
    r = build(diagnosis, kb, facts)
    out = ["## kb diagnose", "", f"Evidence: {_code(shown_name(r.root))}", "", *_head(r, diagnosis)]
    for i, c in enumerate(r.candidates, 1):
        out += _candidate(i, c)
    for line in r.distinctions:
        out += [f"**Telling apart** {_text(line)}", ""]
    if r.possible:
        out += ["### Possible, from weaker signs", ""]
        for i, c in enumerate(r.possible, len(r.candidates) + 1):
            out += _candidate(i, c)
    if r.state in ("none", "possible"):
        if r.near:
            out += ["### Partly matching", ""]
            out += [*[f"- {_code(case_id)}: {_text(why)}" for case_id, why in r.near], ""]
        if r.suspicious:
            out += [
                "### Most suspicious lines",
                "",
                "| query | where | rank | line |",
                "|---|---|---|---|",
            ]
            for rank, ln in r.suspicious:
                out.append(
                    f"| suspicious | {_code(ln.where)} | {_text(rank)} | {_code(ln.text[:200])} |"
                )
            out.append("")
        if r.progress:
            out += ["### Last progress line of each rank", ""]
            out += [
                f"- {_text(rank)}: {_code(ln.where)} {_code(ln.text[:200])}"
                for rank, ln in r.progress
            ]
            out.append("")
        if r.next_steps:
            out += ["### What to collect next", "", *_asks(r.next_steps)]
    out += [f"What was read: {_text('; '.join(r.read))}", ""]
    return "\n".join(out).rstrip() + "\n"
