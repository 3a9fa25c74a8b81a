"""A case's title cut to what a reader scans: the chart's boxes, the triage page's few cases.

Case titles carry the message and the cause ("Address already in use …: the master port
… is taken"); a list of three of them on one line wraps to four lines. The lead before the
first ": " is what the reader sees; a lead that only names a platform keeps the title.
"""

from __future__ import annotations

import re

from dsl import model as m
from kb.site import casepage

CHART_TITLE = 64  # characters of a title a box shows
CHART_LEAD = 20  # a shorter lead before ": " names a platform, not the symptom
_DANGLING = re.compile(r"(\s+(or|and|with|by|of|in|on|at|the|a|to|/|-))+$", re.IGNORECASE)


def short_title(case: m.Case, limit: int = CHART_TITLE) -> str:
    """The title's lead (what the reader sees, before its first ": "), cut at a word; the
    whole title when the lead is only a platform's name ("Ascend: …")."""
    title = casepage.plain_title(case.title.en).strip()
    lead = title.split(": ", 1)[0].strip()
    text = lead if len(lead) >= CHART_LEAD else title
    if len(text) > limit:
        text = text[: limit - 1].rsplit(" ", 1)[0]
        if text.count("(") > text.count(")"):  # never an unclosed aside
            text = text[: text.rindex("(")]
        text = _DANGLING.sub("", text.rstrip(" ,;")) + "…"
    return text
