"""A diagnosis for a terminal: colour on a TTY, plain when piped or NO_COLOR is set.

The first screen (24 lines) is the answer: what, how sure, why in one line, the first fix and
the one command to run next. The detail follows below it (each candidate's evidence once, the
condition in words, what to collect, every fix); `verbose` adds every clause, every line and
the full account of what was read.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import textwrap
from typing import TYPE_CHECKING, Any, TextIO

from kb.evidence.facts import EvidenceLine
from kb.evidence.inputs import shown_name
from kb.evidence.lazy_pattern import lazy
from kb.match.diagnose import Diagnosis
from kb.report.model import CLAUSE_WORDS, STATE_WORDS, Ask, Candidate, Fix, Report, build
from kb.report.shown_path import shown_command
from kb.report.terminal import evidence_for_terminal as _e
from kb.report.terminal import safe_for_terminal

if TYPE_CHECKING:  # a warm run reports from the snapshot's records (kb.cache.records)
    from dsl.compiler import KnowledgeBase

FIRST_SCREEN = 24
SHOWN_LINES = 4  # evidence lines per candidate below the first screen (all with verbose)
FIX_LINES = 5  # command lines of the first fix on the first screen


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


_SGR_OR_CHAR = lazy(r"\x1b\[[0-9;]*m|.", re.S)


def _clip(text: str, width: int) -> str:
    """At most `width` visible characters: colour sequences are not counted, and a cut line
    ends its colour, so a clipped line never spills onto the next row of the terminal.

    >>> _clip("ab\\x1b[2mcdef\\x1b[0m", 4)
    'ab\\x1b[2mc…\\x1b[0m'
    >>> _clip("abc", 3)
    'abc'
    """
    if len(_plain(text)) <= width:
        return text
    out, seen, coloured = [], 0, False
    for token in _SGR_OR_CHAR.findall(text):
        if len(token) > 1:  # a colour sequence: zero width
            out.append(token)
            coloured = True
            continue
        if seen == width - 1:
            break
        seen += 1
        out.append(token)
    return "".join(out) + "…" + ("\x1b[0m" if coloured else "")


def _evidence_line(ln: EvidenceLine, style: Style, indent: str) -> list[str]:
    rank = f"rank {ln.rank}" if ln.rank is not None and ln.rank >= 0 else "no rank"
    text = ln.text if len(ln.text) <= 220 else ln.text[:217] + "..."
    where = style.cyan(_e(ln.where))
    return [f"{indent}{where} {style.dim('(' + rank + ')')}", f"{indent}  {_e(text)}"]


def _commands(
    commands: list[str], style: Style, indent: str, limit: int = 0, prompt: bool = False
) -> list[str]:
    """Command blocks, `$ ` before each block's first line when it is sure to be shell."""
    out = []
    for code in commands:
        for i, line in enumerate(code.splitlines()):
            lead = ("$ " if i == 0 else "  ") if prompt else ""
            out.append(f"{indent}{style.bold(lead + line)}")
    if limit and len(out) > limit:
        out = [*out[:limit], f"{indent}  … ({len(out) - limit} more line(s) below)"]
    return out


def _asks(items: list[Ask], style: Style, indent: str, printed: set[str]) -> list[str]:
    out = []
    for ask in items:
        out.append(f"{indent}- {ask.what}")
        if len(ask.cases) > 1:
            out.append(f"{indent}  {style.dim('tells apart: ' + ', '.join(ask.cases))}")
        if ask.note:
            out.append(f"{indent}  {style.dim(ask.note)}")
        for cmd in ask.commands:
            if cmd in printed:
                out.append(f"{indent}    {style.dim('(the same command as above)')}")
                continue
            printed.add(cmd)
            out += _commands([cmd], style, indent + "    ", prompt=True)
    return out


def _first_screen(r: Report, style: Style, width: int) -> list[str]:
    out: list[str] = []
    if r.state == "empty" and r.skipped:
        out.append(style.bold(f"Nothing could be read in {_e(shown_name(r.root))}: "
                              f"{len(r.skipped)} file(s) skipped."))  # fmt: skip
        out += [f"  {_e(path)}: {_e(reason)}" for path, reason in r.skipped[:3]]
        if len(r.skipped) > 3:
            out.append(f"  … and {len(r.skipped) - 3} more (kb evidence lists them)")
        out.append("  Hand over readable copies (or capture anew with `kb collect`), then run "
                   "kb diagnose again.")  # fmt: skip
    elif r.state == "empty":
        out += [
            style.bold(f"This folder is empty: nothing was read in {_e(shown_name(r.root))}."),
            "  There is nothing to diagnose yet. Put the job's logs here, or capture the",
            "  environment with `kb collect`, then run kb diagnose on the result.",
        ]
    elif r.state == "match":
        c = r.candidates[0]
        rank = f", culprit rank {c.culprit}" if c.culprit is not None else ""
        others = len(r.candidates) - 1
        more = f"; {others} other case(s) also match" if others else ""
        out += [
            style.bold(f"Most likely: {c.verdict.id} ({c.level_words}{rank}){more}"),
            *_wrapped(c.verdict.title, "  ", width),
            *_ranking(r, width),
            *_wrapped(_e(r.why), "  why: ", width, 1),
            *(_wrapped(c.verdict.stopped, "  level: ", width, 1) if c.verdict.stopped else []),
        ]
    elif r.state == "possible":
        names = ", ".join(c.verdict.id for c in r.possible[:3])
        out += [
            style.bold("No known case is confirmed or likely."),
            f"Possible (weak signs only): {names}",
            *_ranking(r, width),
            *_wrapped(_e(r.why), "  why: ", width, 1),
            *(
                _wrapped(r.possible[0].verdict.stopped, "  level: ", width, 1)
                if r.possible and r.possible[0].verdict.stopped
                else []
            ),
            *_known_lines(r, width),  # when the catalogue alone named them: what each means
        ]
    else:
        out += [style.bold("No known case matches this evidence."), f"  {_e(r.why)}."]
        out += _known_lines(r, width)
    out += _fix_lines(r.first_fix, r.state, style)
    out += [
        style.bold("Next: ")
        + style.bold("$ " + shown_command(r.next_command, r.root).splitlines()[0])
    ]
    out.append(f"  {style.dim(r.next_why)}")
    return [_clip(line, width) for line in out]


def _known_lines(r: Report, width: int) -> list[str]:
    """The messages the catalogue knows among the lines read: never a silent answer."""
    if not r.known_messages:
        return []
    out = ["  But these lines are messages the catalogue knows:"]
    for k in r.known_messages[:3]:
        named = [c for c in k.causes if c != "unknown"]
        who = ", ".join(named[:4]) + (f" and {len(named) - 4} more" if len(named) > 4 else "")
        if "unknown" in k.causes:
            who = f"{who} or a cause no case covers" if who else "causes no case covers yet"
        out += [
            f"  - {_e(k.line.where)}: {_e(k.line.text).strip()}",
            *_wrapped(k.means, "      means: ", width, 2),
            *_wrapped(who, "      printed by: ", width, 1),
        ]
        if k.tell_apart:
            out += _wrapped(f"`{k.tell_apart}`", "      to tell them apart: ", width, 1)
    return [_clip(line, width) for line in out]


def _ranking(r: Report, width: int) -> list[str]:
    return _wrapped(r.ranking, "  ", width) if r.ranking else []


def _wrapped(text: str, lead: str, width: int, lines: int = 2) -> list[str]:
    """At most `lines` lines of `width`; the last one cut with an ellipsis."""
    indent = " " * len(lead)
    out = textwrap.wrap(
        text, width, initial_indent=lead, subsequent_indent=indent, break_on_hyphens=False
    )
    if len(out) > lines:
        out = [*out[: lines - 1], _clip(out[lines - 1] + " " + out[lines].strip(), width)]
    return out or [lead.rstrip()]


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def _fix_lines(fix: Fix | None, state: str, style: Style) -> list[str]:
    """The first fix: its steps, each with the start of its commands, in few lines."""
    if state == "empty":
        return []
    if fix is None:
        return ["Fix: none known yet; first collect what is asked for below."]
    label = "Fix first" if state == "match" else "Fix, if it is this case"
    out = [style.bold(f"{label}: {fix.title}")]
    per_step = max(1, FIX_LINES // len(fix.steps[:3]))
    for i, step in enumerate(fix.steps[:3], 1):
        out.append(f"  {i}. {step.title}")
        out += _commands(step.commands, style, "       ", per_step)
    if len(fix.steps) > 3:
        out.append(f"  … {len(fix.steps) - 3} more step(s) below")
    return out


def _needs(c: Candidate, style: Style, verbose: bool) -> list[str]:
    out = []
    order = {"require": 0, "likely": 1, "possible": 2, "support": 3, "rule_out": 4}
    for need in sorted(c.needs, key=lambda n: order.get(n.role, 5)):
        if not verbose and need.role in ("support", "possible"):
            continue
        if not verbose and need.role == "rule_out" and need.state != "true":
            continue
        if not verbose and need.role == "likely" and c.verdict.level == "confirmed":
            continue
        state = STATE_WORDS[need.state]
        out.append(f"     {CLAUSE_WORDS.get(need.role, need.role)}: {need.words}  ({state})")
    return out


def _candidate(index: int, c: Candidate, style: Style, verbose: bool, printed: set[str]) -> list:
    v = c.verdict
    colour = style.green if v.level == "confirmed" else style.yellow
    out = [style.bold(colour(f"{index}. {v.id}  {c.level_words}")), f"   {v.title}"]
    if v.stopped:  # why the confidence ladder kept it at this level
        out.append(f"   level: {v.stopped}")
    if c.culprit is not None:
        out.append(f"   culprit rank: {style.bold(str(c.culprit))}")
    needs = _needs(c, style, verbose)
    if needs:
        out += ["   what it takes:", *needs]
    if c.shown:
        out.append("   evidence:")
        shown = c.shown if verbose else c.shown[:SHOWN_LINES]
        said = None
        for item in shown:
            if item.shows != said:  # lines that show the same thing under one heading
                said = item.shows
                out.append(f"    - {'; '.join(item.shows)}")
            out += _evidence_line(item.line, style, "      ")
        if len(c.shown) > len(shown):
            out.append(
                f"      … and {len(c.shown) - len(shown)} more line(s) (-v or --format json)"
            )
    if c.against:
        out.append("   speaks against:")
        out += [f"    - {_e(reason)}" for reason in c.against]
    if c.confirm and v.level != "confirmed":
        out.append("   to confirm it, collect:")
        out += _asks(c.confirm, style, "    ", printed)
    elif c.confirm and verbose:
        out.append("   other evidence that would prove it, collect:")
        out += _asks(c.confirm, style, "    ", printed)
    if c.helps and (verbose or v.level != "confirmed"):
        out.append("   would make it more or less likely, collect:")
        out += _asks(c.helps, style, "    ", printed)
    if c.rule_out and (verbose or v.level != "confirmed"):
        out.append("   could rule it out, collect:")
        out += _asks(c.rule_out, style, "    ", printed)
    if c.ask_user and verbose:
        out.append("   only you can say (write it in notes.txt):")
        out += [f"    - {what}" for what in c.ask_user]
    if c.fixes:
        out.append("   fixes:")
        for r_i, fix in enumerate(c.fixes, 1):
            out.append(f"    {r_i}. {fix.title}")
            for s_i, step in enumerate(fix.steps, 1):
                if step.other_platform and not verbose:
                    out.append(f"       {r_i}.{s_i} {style.dim('(for the other platform, -v)')}")
                    continue
                tried = (
                    style.dim(f"  (your notes say this was tried: {_e(step.tried.where)})")
                    if step.tried
                    else ""
                )
                out.append(f"       {r_i}.{s_i} {step.title}{tried}")
                out += _commands(step.commands, style, "           ")
                if step.verify:
                    out.append(f"           verify: {step.verify.splitlines()[0]}")
    out.append(f"   page: {v.page}")
    return out


def render_text(
    diagnosis: Diagnosis,
    kb: KnowledgeBase,
    *,
    colour: bool = False,
    summary: str = "",
    facts: Any = None,
    verbose: bool = False,
    width: int | None = None,
) -> str:
    style = Style(colour)
    r = build(diagnosis, kb, facts)
    width = width or shutil.get_terminal_size((100, 24)).columns
    out = _first_screen(r, style, width)
    out += ["", style.dim("─" * min(width, 100)), ""]
    printed: set[str] = set()
    for i, c in enumerate(r.candidates, 1):
        out += [*_candidate(i, c, style, verbose, printed), ""]
    for line in r.distinctions:
        out += [f"Telling apart {line}", ""]
    if r.possible:
        out.append(style.bold("Possible, from weaker signs (not enough to say):"))
        for i, c in enumerate(r.possible, len(r.candidates) + 1):
            out += [*_candidate(i, c, style, verbose, printed), ""]
    if r.state in ("none", "possible"):
        if r.near:
            out.append("Partly matching (a required sign is missing or ruled out):")
            out += [f"  - {case_id}: {_e(why)}" for case_id, why in r.near]
            out.append("")
        if r.suspicious:
            out.append("Most suspicious lines:")
            for rank, ln in r.suspicious:
                out += [f"  {rank}:", *_evidence_line(ln, style, "    ")]
            out.append("")
        if r.progress:
            out.append("Last progress line of each rank:")
            for rank, ln in r.progress:
                out += [f"  {rank}:", *_evidence_line(ln, style, "    ")]
            out.append("")
        if r.next_steps:
            out.append("What to collect next:")
            out += _asks(r.next_steps, style, "  ", printed)
            out.append("")
    if verbose and summary:
        out += [style.bold("What was read"), *map(_e, summary.rstrip().split("\n"))]
    else:
        where = f" in {_e(shown_name(r.root))}" if r.root else ""
        out += [style.bold(f"What was read{where}: ") + _e("; ".join(r.read))]
        if summary:
            out.append(style.dim("(kb diagnose -v shows every file, version and variable read)"))
    return "\n".join(out).rstrip() + "\n"


def write_text(
    diagnosis: Diagnosis,
    kb: KnowledgeBase,
    summary: str = "",
    stream: TextIO | None = None,
    *,
    facts: Any = None,
    verbose: bool = False,
    pager: bool = True,
) -> None:
    """The text report; on a terminal it does not fit, through a pager (`pager.py`)."""
    from kb.report.pager import write_paged

    stream = stream or sys.stdout
    text = render_text(
        diagnosis, kb, colour=use_colour(stream), summary=summary, facts=facts, verbose=verbose
    )
    write_paged(safe_for_terminal(text), stream, allowed=pager)
