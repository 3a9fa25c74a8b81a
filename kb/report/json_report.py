"""A diagnosis as JSON following the versioned `kb.diagnosis/v1` contract.

Top level: `schema`, `evidence_root`, `evidence` (the summary of what was read),
`matches` best first, confirmed or likely (each: `id`, `title`, `score` 0..1, `level`,
`confidence`, `culprit_rank`, `evidence` as a list of `{query, file, line, rank, text}`,
`missing`, `against`, `remedies`, `page`), `possible` (the same shape, weaker signs only),
`near_misses`, `distinctions`, and for no match `suspicious`,
`last_progress` and `next_steps`.
"""

from __future__ import annotations

import json
from typing import Any

from dsl.compiler import KnowledgeBase
from kb.evidence.facts import EvidenceLine
from kb.match.diagnose import Diagnosis
from kb.match.results import Verdict


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
        "culprit_rank": v.culprit_rank,
        "evidence": [_line(q, ln) for q, ln in v.evidence],
        "missing": [m.model_dump() for m in v.missing],
        "against": {"reasons": v.against_reasons, "lines": [_line(q, ln) for q, ln in v.against]},
        "conditions": [c.model_dump(mode="json") for c in v.clauses],
        "remedies": _remedies(kb, v.id),
        "page": v.page,
    }


def render_json(diagnosis: Diagnosis, kb: KnowledgeBase, facts: Any = None) -> str:
    data: dict[str, Any] = {
        "schema": diagnosis.schema_id,
        "evidence_root": diagnosis.evidence_root,
        "evidence": diagnosis.evidence,
        "matches": [_verdict(v, kb) for v in diagnosis.matches],
        "possible": [_verdict(v, kb) for v in diagnosis.possible],
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
