"""What kb triage does with one issue: comment (a case at the minimum level or better), only
suggest a label (nothing reaches it), or nothing (already answered, or a case skipped).

The issue is read as `kb diagnose -e issue.json` reads it (kb/evidence/issue_tasks.py):
title, body and the reporter's comments, each pasted block as a file of its own kind."""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dsl import model as m
from dsl.compiler import KnowledgeBase
from kb.evidence.github_issue import parse_issue
from kb.evidence.issue_body import split_body
from kb.match.diagnose import diagnose_bundle, read_bundle
from kb.report.model import build
from kb.report.shapes import Candidate, Report
from kb.triage.comment import render_comment
from kb.triage.language import issue_language

LEVELS = ("possible", "likely", "confirmed")  # weakest first
ISSUE_FILE = "issue.json"  # how the issue's lines are cited while it is read


@dataclass
class TriageOptions:
    min_level: str = "likely"
    labels: list[str] = field(default_factory=list)  # added with the comment
    needs_label: str = "needs-evidence"  # suggested when no case reaches min_level
    skip: frozenset[str] = frozenset()  # case ids never named
    language: str = "auto"  # auto | en | zh
    site_url: str = ""  # case pages live here (default: KB_SITE_URL, as kb diagnose)


@dataclass
class Decision:
    action: str  # comment | label | none
    reason: str
    case: str | None = None
    level: str = "none"
    comment: str = ""
    labels: list[str] = field(default_factory=list)
    ask: str = ""  # below the minimum: the one capture that would settle it


def rank_of(level: str) -> int:
    return LEVELS.index(level) if level in LEVELS else -1


def triage_issue(issue: dict[str, Any], kb: KnowledgeBase, options: TriageOptions) -> Decision:
    parsed = parse_issue(issue)
    if parsed is None:
        return Decision("none", "the event's issue has no body to read")
    if parsed.triaged:
        return Decision("none", "kb triage already answered this issue (its marker is there)")
    report = _diagnose(issue, kb)
    shown = [c for c in [*report.candidates, *report.possible] if c.verdict.id not in options.skip]
    best = shown[0] if shown else None
    if best is not None and rank_of(best.verdict.level) >= rank_of(options.min_level):
        words = " ".join([parsed.title, *split_body(parsed.texts[0].text).prose.values()])
        language = options.language if options.language != "auto" else issue_language(words)
        return Decision(
            "comment",
            f"{best.verdict.id} is {best.verdict.level}",
            case=best.verdict.id,
            level=best.verdict.level,
            comment=render_comment(best, language, options.site_url, _case(kb, best.verdict.id)),
            labels=list(options.labels),
        )
    level = best.verdict.level if best else "none"
    why = f"best case {best.verdict.id} is only {level}" if best else "no case matches"
    return Decision(
        "label",
        f"{why} (below {options.min_level})",
        case=best.verdict.id if best else None,
        level=level,
        labels=[options.needs_label] if options.needs_label else [],
        ask=_one_ask(best, report),
    )


def _diagnose(issue: dict[str, Any], kb: KnowledgeBase) -> Report:
    with tempfile.TemporaryDirectory(prefix="kb-triage-") as tmp:
        path = Path(tmp) / ISSUE_FILE
        path.write_text(json.dumps(issue), encoding="utf-8")
        bundle = read_bundle(kb, str(path), workers=1)
        diagnosis = diagnose_bundle(kb, bundle)
        return build(diagnosis, kb, bundle.facts)


def _one_ask(best: Candidate | None, report: Report) -> str:
    """The one capture to ask for: what would confirm the best guess, else the report's
    next step, else the whole `kb collect` bundle."""
    asks = [*best.confirm, *best.helps] if best is not None else []
    asks += report.next_steps
    for ask in asks:
        if ask.commands:
            return f"{ask.what}:\n" + "\n".join(f"    {ln}" for ln in ask.commands[0].splitlines())
    return "run `kb collect` on a node of the failing job and attach the archive it writes"


def _case(kb: KnowledgeBase, case_id: str) -> m.Case | None:
    compiled = kb.get(case_id)
    return compiled.case if compiled is not None else None
