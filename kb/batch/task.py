"""One job, diagnosed: the unit of work a Ray task runs.

The driver compiles the knowledge base once and ships it to the cluster (`ray.put`); each
worker process unpacks it once and keeps it (module cache), so workers need no case files
and no job pays for compiling. Nothing a job holds can raise out of here: any failure
becomes an error row.
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

_SHIPPED: dict[str, Any] = {}  # object id -> knowledge base, per worker process


def load_kb(case_roots: list[str], use_cache: bool = True) -> Any:
    from dsl.compiler import load_knowledge_base
    from kb.lint.drafts import leave_out_drafts

    # as `kb diagnose` does: an unfinished draft in a pack never names a job's cause
    return leave_out_drafts(load_knowledge_base(case_roots, use_cache=use_cache, with_env=False))


def _diagnose(kb: Any, path: str) -> dict[str, Any]:
    from kb.match.diagnose import diagnose_bundle, read_bundle
    from kb.report.json_report import render_json

    bundle = read_bundle(kb, path, workers=1)  # one core per task: Ray does the spreading
    report: dict[str, Any] = json.loads(render_json(diagnose_bundle(kb, bundle), kb))
    return report


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def diagnose_job(job: JobRef, kb: Any) -> dict[str, Any]:
    """`{"row", "pid", "seconds", "cpu_seconds", "peak_rss_kb"}` for one job."""
    started, cpu = time.perf_counter(), _cpu()
    try:
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
        "cpu_seconds": _cpu() - cpu,
        "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }


def diagnose_shipped(job: JobRef, boxed: list[Any]) -> dict[str, Any]:
    """The Ray task: `boxed` holds the knowledge base's object ref (in a list, so Ray hands
    over the ref and this worker fetches and unpacks it only the first time)."""
    import ray

    ref = boxed[0]
    key = ref.hex()
    if key not in _SHIPPED:
        _SHIPPED.clear()  # one batch at a time per worker
        _SHIPPED[key] = ray.get(ref)
    return diagnose_job(job, _SHIPPED[key])
