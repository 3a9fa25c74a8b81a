"""One job's diagnosis as one flat result row, built from the `kb.diagnosis/v1` JSON report,
so a row says exactly what `kb diagnose --format json` says for that job."""

from __future__ import annotations

from typing import Any

NO_MATCH = "no-match"
ERROR = "error"
TIMEOUT = "timeout"  # the job's time limit ran out; the row holds what was read before
WORKER_DIED = "worker-died"  # the worker process died (OOM killer, lost node) past retries
FAILED = (ERROR, TIMEOUT, WORKER_DIED)  # verdicts of a job kb could not diagnose in full
MAX_POINTERS = 20  # evidence pointers per row: enough to open the lines, not the whole report

# the row's columns, in order (Parquet needs one schema for every row)
COLUMNS = (
    "job",
    "verdict",
    "case_id",
    "level",
    "confidence",
    "score",
    "culprit_rank",
    "evidence",
    "also",
    "files",
    "error",
    "note",  # what was left out of the job (caps, copy budget), when anything was
)


def row_from_report(job: str, report: dict[str, Any]) -> dict[str, Any]:
    """`verdict` is the best case's level (confirmed, likely, possible) or `no-match`;
    `evidence` the `file:line` of the lines that speak for it; `also` the other candidates."""
    ranked = list(report.get("matches", [])) + list(report.get("possible", []))
    files = sum(len(v) for v in report.get("evidence", {}).get("files", {}).values())
    row: dict[str, Any] = dict.fromkeys(COLUMNS)
    row.update(
        job=job,
        files=files,
        also=[v["id"] for v in ranked[1:]],
        evidence=[],
        error="",
        note=_caps_hit(report),
    )
    if not ranked:
        row.update(verdict=NO_MATCH, level="none", confidence="low", score=0.0)
        return row
    best = ranked[0]
    pointers = [f"{e['file']}:{e['line']}" for e in best.get("evidence", [])]
    row.update(
        verdict=best["level"],
        case_id=best["id"],
        level=best["level"],
        confidence=best["confidence"],
        score=best["score"],
        culprit_rank=best.get("culprit_rank"),
        evidence=list(dict.fromkeys(pointers))[:MAX_POINTERS],
    )
    return row


def _caps_hit(report: dict[str, Any]) -> str:
    """The reader's notes on limits that left part of the job unread (say, the archive member
    cap), so a row that looks complete says when it is not."""
    skipped = report.get("evidence", {}).get("skipped", [])
    notes = [
        f"{s.get('path')}: {s.get('reason')}"
        for s in skipped
        if isinstance(s, dict) and "not read" in str(s.get("reason", ""))
    ]
    return "; ".join(notes)[:500]


def error_row(job: str, message: str, verdict: str = ERROR) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(COLUMNS)
    row.update(
        job=job,
        verdict=verdict,
        level="none",
        confidence="low",
        score=0.0,
        evidence=[],
        also=[],
        files=0,
        error=message[:500],
        note="",
    )
    return row
