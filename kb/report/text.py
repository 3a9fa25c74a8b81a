"""A diagnosis for a terminal: colour on a TTY, plain when piped or NO_COLOR is set."""

from __future__ import annotations

import os
import sys
from typing import TextIO

from dsl.compiler import KnowledgeBase
from kb.evidence.facts import EvidenceLine
from kb.match.diagnose import Diagnosis
from kb.match.results import Missing, Verdict
from kb.report.terminal import safe_for_terminal

PER_QUERY = 2


def group_evidence(v: Verdict) -> list[tuple[str, list[EvidenceLine]]]:
    """Evidence lines per query, the rarest (most specific) first: one source line that
    proves the cause matters more than sixty repeated timeout lines."""
    groups: dict[str, list[EvidenceLine]] = {}
    for name, ln in v.evidence:
        groups.setdefault(name, []).append(ln)
    return sorted(groups.items(), key=lambda item: len(item[1]))


class Style:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def _wrap(self, code: str, text: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.enabled else text

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)

    def green(self, text: str) -> str:
        return self._wrap("32", text)

    def red(self, text: str) -> str:
        return self._wrap("31", text)

    def yellow(self, text: str) -> str:
        return self._wrap("33", text)

    def cyan(self, text: str) -> str:
        return self._wrap("36", text)


def use_colour(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


def _line(ln: EvidenceLine, style: Style, indent: str = "      ") -> list[str]:
    rank = f"rank {ln.rank}" if ln.rank is not None else "no rank"
    text = ln.text if len(ln.text) <= 220 else ln.text[:217] + "..."
    return [f"{indent}{style.cyan(ln.where)} {style.dim('(' + rank + ')')}", f"{indent}  {text}"]


def _missing(items: list[Missing], style: Style, indent: str = "    ") -> list[str]:
    out = []
    seen: set[str] = set()
    printed: set[str] = set()
    for miss in items:
        out.append(f"{indent}- {miss.description}")
        if miss.cases:
            out.append(f"{indent}  {style.dim('tells apart: ' + ', '.join(miss.cases))}")
        if miss.note and miss.note not in seen:
            seen.add(miss.note)
            out.append(f"{indent}  {style.dim(miss.note)}")
        for cmd in miss.commands:
            lines = cmd.splitlines() or [""]
            if lines[0] in printed:
                out.append(f"{indent}    {style.dim('(the same command as above)')}")
                continue
            printed.add(lines[0])
            for i, cmd_line in enumerate(lines):
                prefix = "$ " if i == 0 else "  "
                out.append(f"{indent}    {style.bold(prefix + cmd_line)}")
    return out


LEVEL_WORDS = {
    "confirmed": "confirmed",
    "likely": "likely (not yet proven)",
    "possible": "possible (weak signs only)",
}


def headline(diagnosis: Diagnosis) -> list[str]:
    """The first line a person reads: what is most likely, and how sure."""
    if diagnosis.matches:
        best = diagnosis.matches[0]
        rank = f", culprit rank {best.culprit_rank}" if best.culprit_rank is not None else ""
        others = len(diagnosis.matches) - 1
        more = f"; {others} other case(s) also match" if others else ""
        return [
            f"Most likely: {best.id} ({LEVEL_WORDS[best.level]}{rank}){more}",
            f"  {best.title}",
            *why_first(diagnosis.ranked),
        ]
    if diagnosis.possible:
        names = ", ".join(v.id for v in diagnosis.possible[:3])
        return [
            "No known case is confirmed or likely.",
            f"Possible: {names}",
            *why_first(diagnosis.possible),
        ]
    return ["No known case matches this evidence."]


def why_first(ranked: list[Verdict]) -> list[str]:
    """One line on why the first candidate ranks above the second: its level, or its score
    and the evidence only it has, and what speaks against the second."""
    if len(ranked) < 2:
        return []
    first, second = ranked[0], ranked[1]
    if first.level != second.level:
        reason = f"it is {first.level}, {second.id} only {second.level}"
    else:
        own = sorted({n for n, _ in first.evidence} - {n for n, _ in second.evidence})
        reason = f"score {first.score:.2f} vs {second.score:.2f}" + (
            f"; only it has {', '.join(own[:4])}" if own else ""
        )
    against = (
        f"; against {second.id}: {second.against_reasons[0]}" if second.against_reasons else ""
    )
    return [f"  ranked above {second.id}: {reason}{against}"]


def _verdict(index: int, v: Verdict, kb: KnowledgeBase, style: Style) -> list[str]:
    colour = style.green if v.level == "confirmed" else style.yellow
    head = f"{index}. {v.id}  {v.level}  score {v.score:.2f}  confidence {v.confidence}"
    out = [style.bold(colour(head)), f"   {v.title}"]
    if v.culprit_rank is not None:
        out.append(f"   culprit rank: {style.bold(str(v.culprit_rank))}")
    out.append("   condition:")
    order = {"require": 0, "likely": 1, "possible": 2, "support": 3, "rule_out": 4}
    for c in sorted(v.clauses, key=lambda c: order.get(c.role, 5)):
        mark = {"true": style.green("✔"), "false": style.red("✘"), "unknown": style.yellow("?")}
        out.append(f"     {mark[c.truth.value]} {c.role:<8} {c.text}")
    if v.evidence:
        out.append("   evidence:")
        for name, lines in group_evidence(v):
            detail = next((q.detail for q in v.queries if q.name == name), "")
            out.append(f"    [{name}] {style.dim(detail)}")
            for ln in lines[:PER_QUERY]:
                out.extend(_line(ln, style))
            if len(lines) > PER_QUERY:
                out.append(f"      … and {len(lines) - PER_QUERY} more (--format json)")
    if v.against_reasons:
        out.append("   speaks against:")
        out.extend(f"    - {r}" for r in v.against_reasons)
    compiled = kb.get(v.id)
    if v.missing and v.level != "confirmed":
        confirm = [m for m in v.missing if m.confirms] or v.missing
        out.append("   to confirm it, collect:")
        out.extend(_missing(confirm, style))
    elif v.missing:
        out.append("   missing evidence (collect it to be sure):")
        out.extend(_missing(v.missing, style))
    if compiled is not None and compiled.case.remedies:
        out.append("   remedies:")
        for r_i, remedy in enumerate(compiled.case.remedies, 1):
            out.append(f"    {r_i}. {remedy.title.en}")
            for s_i, step in enumerate(remedy.steps, 1):
                out.append(f"       {r_i}.{s_i} {step.title.en}")
                for cmd in step.commands[:2]:
                    for cmd_line in cmd.code.splitlines()[:6]:
                        out.append(f"           {style.bold(cmd_line)}")
                if step.verify:
                    out.append(f"           verify: {step.verify.en.splitlines()[0]}")
    out.append(f"   page: {v.page}")
    return out


def _why_possible(v: Verdict) -> str:
    held = sorted({name for name, _ in v.evidence})
    return ("signs: " + ", ".join(held)) if held else "its weaker signs hold"


def render_text(
    diagnosis: Diagnosis, kb: KnowledgeBase, *, colour: bool = False, summary: str = ""
) -> str:
    style = Style(colour)
    head = headline(diagnosis)
    out: list[str] = [style.bold(head[0]), *head[1:], ""]
    if diagnosis.matches:
        for i, v in enumerate(diagnosis.matches, 1):
            out += _verdict(i, v, kb, style)
            out.append("")
        for d in diagnosis.distinctions:
            out.append(style.bold(f"Telling {d.first} from {d.second}:"))
            out.append(f"   {d.explanation}")
            out.extend(_missing(d.hints, style, "   "))
            out.append("")
    if diagnosis.possible:
        out.append(style.bold("Possible, from weaker signs (not enough to say):"))
        for v in diagnosis.possible:
            out.append(f"  - {v.id}: {v.title}")
            out.append(f"    {style.dim(_why_possible(v))}")
            for ln in [ln for _, ln in v.evidence][:2]:
                out.extend(_line(ln, style, "      "))
        out.append("")
    if not diagnosis.matches:
        if diagnosis.near_misses:
            out.append("Partly matching (a required sign is missing or ruled out):")
            for v in diagnosis.near_misses:
                failed = [
                    c.text for c in v.clauses if c.role == "require" and c.truth.value != "true"
                ]
                ruled = [
                    c.text for c in v.clauses if c.role == "rule_out" and c.truth.value == "true"
                ]
                why = []
                if failed:
                    why.append(f"missing {'; '.join(failed)}")
                if ruled:
                    why.append(f"ruled out by {'; '.join(ruled)}")
                out.append(f"  - {v.id} (score {v.score:.2f}): {', '.join(why)}")
            out.append("")
        if diagnosis.suspicious:
            out.append("Most suspicious lines per rank:")
            for rank, lines in diagnosis.suspicious.items():
                out.append(f"  {'rank ' + rank if rank != 'unknown' else 'rank not known'}:")
                for ln in lines:
                    out.extend(_line(ln, style, "    "))
            out.append("")
        if diagnosis.last_progress:
            out.append("Last progress line of each rank:")
            for rank, ln in diagnosis.last_progress.items():
                out.append(f"  rank {rank}:")
                out.extend(_line(ln, style, "    "))
            out.append("")
        if diagnosis.next_steps:
            out.append("What to collect next:")
            out.extend(_missing(diagnosis.next_steps, style, "  "))
    if summary:
        out += ["", style.bold("What was read"), summary.rstrip()]
    return "\n".join(out).rstrip() + "\n"


def write_text(
    diagnosis: Diagnosis, kb: KnowledgeBase, summary: str = "", stream: TextIO | None = None
) -> None:
    stream = stream or sys.stdout
    stream.write(
        safe_for_terminal(render_text(diagnosis, kb, colour=use_colour(stream), summary=summary))
    )
