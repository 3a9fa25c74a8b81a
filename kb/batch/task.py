"""One job, diagnosed: the unit of work a Ray task runs (and the local fallback runs too).

The knowledge base is compiled once per worker process (module cache), not once per job.
Nothing a job holds can raise out of here: any failure becomes an error row.
"""

from __future__ import annotations

import json
import os
import resource
import tempfile
import time
from typing import Any

from kb.batch.jobs import JobRef
from kb.batch.rows import error_row, row_from_report

_KB: dict[tuple[tuple[str, ...], bool], Any] = {}


def _knowledge_base(case_roots: tuple[str, ...], use_cache: bool) -> Any:
    key = (case_roots, use_cache)
    if key not in _KB:
        from dsl.compiler import load_knowledge_base

        _KB[key] = load_knowledge_base(list(case_roots), use_cache=use_cache, with_env=False)
    return _KB[key]


def _diagnose(kb: Any, path: str) -> dict[str, Any]:
    from kb.match.diagnose import diagnose_bundle, read_bundle
    from kb.report.json_report import render_json

    bundle = read_bundle(kb, path, workers=1)  # one core per task: Ray does the spreading
    report: dict[str, Any] = json.loads(render_json(diagnose_bundle(kb, bundle), kb))
    return report


def diagnose_job(
    job: JobRef, case_roots: tuple[str, ...], use_cache: bool = True
) -> dict[str, Any]:
    """`{"row": …, "pid": …, "seconds": …, "peak_rss_kb": …}` for one job."""
    started = time.perf_counter()
    try:
        kb = _knowledge_base(case_roots, use_cache)
        if job.remote:
            from kb.batch.fetch import fetch

            with tempfile.TemporaryDirectory(prefix="kb-batch-") as tmp:
                fetched = fetch(job.location, tmp)
                row = row_from_report(job.name, _diagnose(kb, fetched.path))
                if fetched.skipped:
                    row["error"] = "; ".join(fetched.skipped)[:500]
        else:
            row = row_from_report(job.name, _diagnose(kb, job.location))
    except Exception as exc:  # a broken job is one error row, never a failed batch
        row = error_row(job.name, f"{type(exc).__name__}: {exc}")
    return {
        "row": row,
        "pid": os.getpid(),
        "seconds": time.perf_counter() - started,
        "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }
