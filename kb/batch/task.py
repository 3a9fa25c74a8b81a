"""One job, diagnosed: the unit of work a Ray task runs.

The driver compiles the knowledge base once and ships it to the cluster (`ray.put`); each
worker process unpacks it once and keeps it (module cache), so workers need no case files
and no job pays for compiling. Nothing a job holds can raise out of here: any failure
becomes an error row, and a job past its time limit a `timeout` row (for a remote job, with
the diagnosis of the files copied before the limit).
"""

from __future__ import annotations

import json
import os
import resource
import tempfile
import time
from typing import Any

from kb.batch.deadline import JobTimeout, deadline
from kb.batch.jobs import JobRef
from kb.batch.rows import TIMEOUT, error_row, row_from_report

DEFAULT_JOB_TIMEOUT = 600.0  # seconds: a large job reads in well under a minute

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


def _remote_row(job: JobRef, kb: Any, tmp: str, timeout: float | None) -> dict[str, Any]:
    from kb.batch.fetch import Fetched, fetch

    fetched = Fetched()
    try:
        with deadline(timeout):
            fetch(job.location, tmp, fetched)
            row = row_from_report(job.name, _diagnose(kb, fetched.path))
    except JobTimeout as exc:
        if fetched.current or not fetched.path:  # stopped while copying: read what came
            return _partial_row(job, kb, fetched.path, f"{exc}; {fetched.so_far()}", timeout)
        return error_row(job.name, f"{exc} while reading the evidence", TIMEOUT)
    row["note"] = "; ".join([*fetched.skipped, *([row["note"]] if row["note"] else [])])[:500]
    return row


def _partial_row(
    job: JobRef, kb: Any, path: str, message: str, timeout: float | None
) -> dict[str, Any]:
    """A `timeout` row holding the diagnosis of what was copied before the limit (files on
    local disk now, read under a second limit of the same length)."""
    if path and os.path.exists(path):
        try:
            with deadline(timeout):
                row = row_from_report(job.name, _diagnose(kb, path))
            row.update(verdict=TIMEOUT, error=message[:500])
            return row
        except JobTimeout:
            message += "; what was copied did not read in time either"
    return error_row(job.name, message, TIMEOUT)


def diagnose_job(job: JobRef, kb: Any, timeout: float | None = None) -> dict[str, Any]:
    """`{"row", "pid", "seconds", "cpu_seconds", "peak_rss_kb"}` for one job; `timeout`
    seconds at most (enforced on the main thread, which is where Ray runs a task)."""
    started, cpu = time.perf_counter(), _cpu()
    try:
        if job.remote:
            with tempfile.TemporaryDirectory(prefix="kb-batch-") as tmp:
                row = _remote_row(job, kb, tmp, timeout)
        else:
            try:
                with deadline(timeout):
                    row = row_from_report(job.name, _diagnose(kb, job.location))
            except JobTimeout as exc:
                row = error_row(job.name, f"{exc} while reading the evidence", TIMEOUT)
    except Exception as exc:  # a broken job is one error row, never a failed batch
        row = error_row(job.name, f"{type(exc).__name__}: {exc}")
    return {
        "row": row,
        "pid": os.getpid(),
        "seconds": time.perf_counter() - started,
        "cpu_seconds": _cpu() - cpu,
        "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }


def diagnose_shipped(
    job: JobRef, boxed: list[Any], timeout: float | None = DEFAULT_JOB_TIMEOUT
) -> dict[str, Any]:
    """The Ray task: `boxed` holds the knowledge base's object ref (in a list, so Ray hands
    over the ref and this worker fetches and unpacks it only the first time)."""
    import ray

    ref = boxed[0]
    key = ref.hex()
    if key not in _SHIPPED:
        _SHIPPED.clear()  # one batch at a time per worker
        _SHIPPED[key] = ray.get(ref)
    return diagnose_job(job, _SHIPPED[key], timeout)
