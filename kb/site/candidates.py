"""A ranked candidate on an error or message page: one closed line a person scans.

The watchdog page listed 17 cases with their whole summaries, check and command open (3.4
screens at 1280 px). Here each candidate is a closed box whose bar is its rank, its short
title (linked) and the one check that tells it apart; the summary, the counts and the
check's command open under it.
"""

from __future__ import annotations

from dsl import model as m
from kb.site import casepage, escape
from kb.site.escape import Md
from kb.site.short_titles import short_title

TITLE = 72  # characters of the case's title on the bar; the whole title is in the box


def block(
    n: int, case: m.Case, base: str, check: Md | None, body: list[str], command: Md | None
) -> str:
    """Candidate `n` as a closed box (raw HTML read by md_in_html, so the link and the
    command inside are Markdown)."""
    link = f"[{escape.line(short_title(case, TITLE))}]({casepage.case_href(case.id, base)})"
    bar = f"**{n}\\. {link}**"
    if check is not None:
        bar += f" · Tells it apart: {check}"
    inside = [f"**{casepage.case_link(case, base)}**", "", *body]
    if command is not None:
        inside += ["", str(command)]
    return "\n".join(
        [
            '<details class="kb-candidate" markdown="1">',
            f'<summary markdown="span">{bar}</summary>',
            "",
            *inside,
            "",
            "</details>",
        ]
    )
