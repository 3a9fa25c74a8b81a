"""The symptom finder's groups: phase, then case, then what the reader sees.

An alphabetical list of every symptom (442 entries, English and Chinese mixed, ~93 phone
screens) could not be scanned. Here each phase of the job is one group, each case in it
is named once, its symptoms under it; English and Chinese are built apart, for one tab
each, so no list holds both. The error messages are grouped the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from dsl import model as m
from kb.site import casepage, escape, phases
from kb.site.escape import Md


@dataclass
class Entry:
    """One case in a phase's group and the lines shown under it."""

    link: Md
    items: list[Any]


def _zh_link(case: m.Case) -> Md:
    """A case link for a Chinese list: the case's Chinese title when it has one."""
    title = case.title.zh or case.title.en
    return Md(f"[{escape.line(title)}](../cases/{quote(case.id, safe='-_.')}.md)")


def _group(key: str, title: str, entries: list[Entry]) -> dict[str, Any]:
    return {
        "key": Md(key),
        "title": escape.line(title),
        "cases": len(entries),
        "count": sum(len(e.items) for e in entries),
        "entries": entries,
    }


def symptoms(cases: list[m.Case], zh: bool) -> list[dict[str, Any]]:
    """Per phase with any: its cases by title, each with its symptoms in one language."""
    out = []
    for phase, members in phases.by_phase(cases):
        entries = []
        for case in sorted(members, key=lambda c: (c.title.zh if zh else "") or c.title.en.lower()):
            texts = [s.text.zh if zh else s.text.en for s in case.symptoms]
            items = [escape.line(t) for t in texts if t]
            if items:
                link = _zh_link(case) if zh else casepage.case_link(case, "../cases/")
                entries.append(Entry(link, items))
        if entries:
            title = phase.title_zh if zh else phase.title
            group = _group(phase.key, title, entries)
            out.append({**group, "block": block(group, "zh" if zh else "symptoms")})
    return out


def errors(cases: list[m.Case], strings: Any) -> list[dict[str, Any]]:
    """Per phase: its cases by title, each with its error messages (`strings(case)` gives
    (message, example) pairs)."""
    out = []
    for phase, members in phases.by_phase(cases):
        entries = []
        for case in sorted(members, key=lambda c: c.title.en.lower()):
            items = list(strings(case))
            if items:
                entries.append(Entry(casepage.case_link(case, "../cases/"), items))
        if entries:
            group = _group(phase.key, phase.title, entries)
            out.append({**group, "block": block(group, "errors")})
    return out


def block(group: dict[str, Any], kind: str) -> Md:
    """A phase as a collapsed box (the reader opens the phase they are in): its title and
    counts on the bar, each case once in bold with its symptoms (or messages) under it."""
    n, count = group["cases"], group["count"]
    if kind == "zh":
        bar = f"{group['title']}：{n} 个案例，{count} 条现象"
    else:
        what = "symptom" if kind == "symptoms" else "message"
        bar = (
            f"{group['title']} — {n} case{'' if n == 1 else 's'}, "
            f"{count} {what}{'' if count == 1 else 's'}"
        )
    lines = [f'??? kb-finder "{bar.replace(chr(34), "")}"', ""]  # a tight list: no blank lines
    for entry in group["entries"]:
        lines.append(f"    - **{entry.link}**")
        if kind == "errors":
            lines.append("")
        for item in entry.items:
            if kind == "errors":
                message, example = item
                lines.append(f"        - {message}")
                if example:
                    lines += ["", f"            Example: {example}", ""]
            else:
                lines.append(f"        - {item}")
        if kind == "errors":
            lines.append("")
    return Md("\n".join(lines))
