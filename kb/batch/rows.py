"""One job's diagnosis as one flat result row, built from the `kb.diagnosis/v1` JSON report,
so a row says exactly what `kb diagnose --format json` says for that job."""

from __future__ import annotations

from typing import Any

NO_MATCH = "no-match"
ERROR = "error"
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
)


def row_from_report(job: str, report: dict[str, Any]) -> dict[str, Any]:
    """`verdict` is the best case's level (confirmed, likely, possible) or `no-match`;
    `evidence` the `file:line` of the lines that speak for it; `also` the other candidates."""
    ranked = list(report.get("matches", [])) + list(report.get("possible", []))
    files = sum(len(v) for v in report.get("evidence", {}).get("files", {}).values())
    row: dict[str, Any] = dict.fromkeys(COLUMNS)
    row.update(job=job, files=files, also=[v["id"] for v in ranked[1:]], evidence=[], error="")
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


def error_row(job: str, message: str) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(COLUMNS)
    row.update(
        job=job,
        verdict=ERROR,
        level="none",
        confidence="low",
        score=0.0,
        evidence=[],
        also=[],
        files=0,
        error=message[:500],
    )
    return row
