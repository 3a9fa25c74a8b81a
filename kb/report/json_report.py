"""A diagnosis as JSON following the versioned `kb.diagnosis/v1` contract.

Top level: `schema`, `evidence_root`, `evidence` (the summary of what was read),
`matches` best first, confirmed or likely (each: `id`, `title`, `score` 0..1, `level`,
`confidence`, `culprit_rank`, `evidence` as a list of `{query, file, line, rank, text}`,
`missing`, `against`, `remedies`, `page`), `possible` (the same shape, weaker signs only),
`near_misses`, `distinctions`, and for no match `suspicious`,
`last_progress` and `next_steps`.

Additions within v1 (no field changed its meaning): `report` (the text report's first screen:
`state` match/possible/none/empty, `answer`, `why`, `platform`, `first_fix`, `next`, `read`)
and, on each match and possible candidate, `level_words`, `needs` (the condition in words),
`collect` (`confirm`, `helps` and `rule_out` apart, only what can be collected), `ask_in_notes`,
`against_in_words`, and on each remedy step `tried` (the notes line saying it was) and
`other_platform`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from kb.evidence.facts import EvidenceLine
from kb.evidence.inputs import shown_name
from kb.match.diagnose import Diagnosis
from kb.match.results import Verdict
from kb.report.model import Ask, Candidate, Fix, Report, build
from kb.report.shown_path import shown_command, shown_in

if TYPE_CHECKING:  # a warm run reports from the snapshot's records (kb.cache.records)
    from dsl.compiler import KnowledgeBase


def _line(query: str, ln: EvidenceLine) -> dict[str, Any]:
    return {
        "query": query,
        "file": ln.file,
        "line": ln.line,
        "rank": ln.rank,
        "text": ln.text,
        "timestamp": ln.timestamp,
    }


def _remedies(kb: KnowledgeBase, case_id: str) -> list[dict[str, Any]]:
    compiled = kb.get(case_id)
    if compiled is None:
        return []
    out = []
    for remedy in compiled.case.remedies:
        out.append(
            {
                "title": remedy.title.en,
                "steps": [
                    {
                        "title": s.title.en,
                        "why": s.why.en if s.why else None,
                        "commands": [c.code for c in s.commands],
                        "alternatives": [
                            {"label": label, "command": c.code} for label, c in s.alternatives
                        ],
                        "verify": s.verify.en if s.verify else None,
                        "verify_commands": [c.code for c in s.verify_commands],
                    }
                    for s in remedy.steps
                ],
            }
        )
    return out


def _verdict(v: Verdict, kb: KnowledgeBase) -> dict[str, Any]:
    return {
        "id": v.id,
        "title": v.title,
        "score": v.score,
        "level": v.level,
        "confidence": v.confidence,
        # the confidence ladder: what the clauses gave, the facts behind it, why it stopped
        "clause_level": v.clause_level,
        "stopped": v.stopped,
        "rivals": v.rivals,
        "facts": [f.model_dump() for f in v.facts],
        "culprit_rank": v.culprit_rank,
        "evidence": [_line(q, ln) for q, ln in v.evidence],
        "missing": [m.model_dump() for m in v.missing],
        "against": {"reasons": v.against_reasons, "lines": [_line(q, ln) for q, ln in v.against]},
        "conditions": [c.model_dump(mode="json") for c in v.clauses],
        "remedies": _remedies(kb, v.id),
        "page": v.page,
    }


def _ask(a: Ask) -> dict[str, Any]:
    return {"what": a.what, "commands": a.commands, "note": a.note, "cases": a.cases}


def _fix(f: Fix) -> dict[str, Any]:
    return {
        "title": f.title,
        "steps": [
            {
                "title": s.title,
                "commands": s.commands,
                "verify": s.verify,
                "verify_commands": s.verify_commands,
                "tried": None if s.tried is None else s.tried.where,
                "other_platform": s.other_platform,
            }
            for s in f.steps
        ],
    }


def _additions(c: Candidate) -> dict[str, Any]:
    return {
        "level_words": c.level_words,
        "needs": [{"role": n.role, "words": n.words, "truth": n.state} for n in c.needs],
        "collect": {
            "confirm": [_ask(a) for a in c.confirm],
            "rule_out": [_ask(a) for a in c.rule_out],
            "helps": [_ask(a) for a in c.helps],
        },
        "ask_in_notes": c.ask_user,
        "against_in_words": c.against,
    }


def _with_steps_marked(data: dict[str, Any], c: Candidate) -> dict[str, Any]:
    for remedy, fix in zip(data["remedies"], c.fixes, strict=False):
        for step, mine in zip(remedy["steps"], fix.steps, strict=False):
            step["tried"] = None if mine.tried is None else mine.tried.where
            step["other_platform"] = mine.other_platform
    return data | _additions(c)


def _report(r: Report) -> dict[str, Any]:
    return {
        "state": r.state,
        "answer": shown_in(r.answer, r.root),
        "why": r.why,
        "ranking": r.ranking,
        "platform": r.platform,
        "first_fix": None if r.first_fix is None else _fix(r.first_fix),
        "next": {"command": shown_command(r.next_command, r.root), "why": r.next_why},
        "read": r.read,
    }


def render_json(diagnosis: Diagnosis, kb: KnowledgeBase, facts: Any = None) -> str:
    r = build(diagnosis, kb, facts)
    data: dict[str, Any] = {
        "schema": diagnosis.schema_id,
        "evidence_root": shown_name(diagnosis.evidence_root),
        "evidence": diagnosis.evidence,
        "report": _report(r),
        "matches": [
            _with_steps_marked(_verdict(v, kb), c)
            for v, c in zip(diagnosis.matches, r.candidates, strict=True)
        ],
        "possible": [
            _with_steps_marked(_verdict(v, kb), c)
            for v, c in zip(diagnosis.possible, r.possible, strict=True)
        ],
        "near_misses": [
            {
                "id": v.id,
                "title": v.title,
                "score": v.score,
                "conditions": [c.model_dump(mode="json") for c in v.clauses],
                "against": v.against_reasons,
                "missing": [m.model_dump() for m in v.missing],
            }
            for v in diagnosis.near_misses
        ],
        "distinctions": [d.model_dump() for d in diagnosis.distinctions],
        # no case reached a level: the catalogued messages found, their meaning and causes
        "known_messages": [k.model_dump() for k in diagnosis.known_messages],
    }
    if not diagnosis.matches:
        data["suspicious"] = {
            r: [_line("suspicious", ln) for ln in lines]
            for r, lines in diagnosis.suspicious.items()
        }
        data["last_progress"] = {
            r: _line("progress", ln) for r, ln in diagnosis.last_progress.items()
        }
        data["next_steps"] = [m.model_dump() for m in diagnosis.next_steps]
    return json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n"
