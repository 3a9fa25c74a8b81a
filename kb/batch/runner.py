"""Running a batch as Ray tasks, one per job: on a local Ray instance started for the batch
(`num_cpus=workers`, shut down at the end) or on an existing cluster (`address`).

Rows come back as tasks finish (`on_row` sees each, so the caller can write it at once), and
the batch's figures (wall time, each worker's peak memory) are kept for the summary and the
benchmark. A worker that dies (the OOM killer, a lost node) is retried by Ray `max_retries`
times and then becomes a `worker-died` row; the batch goes on. After `max_failures` failed
jobs the rest are cancelled and `stopped` says so.
"""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kb.batch.jobs import JobRef
from kb.batch.rows import FAILED, WORKER_DIED, error_row
from kb.batch.task import DEFAULT_JOB_TIMEOUT, diagnose_shipped, load_kb

RAY_HINT = "pip install 'distkb[ray]'"
# ray.wait blocks in C++ where Python's signal handlers cannot run: waiting in short turns
# lets Ctrl-C through at once, not when the next job happens to finish
WAIT_TURN_SECONDS = 0.5
DEFAULT_MAX_RETRIES = 2  # a job whose worker died is run this many more times


@dataclass
class BatchRun:
    rows: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    worker_peak_rss_kb: dict[int, int] = field(default_factory=dict)  # pid -> peak
    task_seconds: float = 0.0
    cpu_seconds: float = 0.0  # CPU time the tasks used: the work, whatever the machine's load
    failures: int = 0  # rows of jobs not diagnosed in full (error, timeout, worker-died)
    stopped: str = ""  # why jobs were left unrun, when they were (--max-failures)


def _collect(
    run: BatchRun, result: dict[str, Any], on_row: Callable[[dict[str, Any]], None]
) -> None:
    run.rows.append(result["row"])
    run.failures += result["row"]["verdict"] in FAILED
    pid = int(result["pid"])
    if pid:  # 0: a row for a task that never came back
        run.worker_peak_rss_kb[pid] = max(
            run.worker_peak_rss_kb.get(pid, 0), int(result["peak_rss_kb"])
        )
    run.task_seconds += float(result["seconds"])
    run.cpu_seconds += float(result["cpu_seconds"])
    on_row(result["row"])


class ClusterUnreachable(Exception):
    """Ray could not start here or reach the cluster at `--address`; the message says why."""


PROBE_SECONDS = 10.0


def _probe(address: str) -> None:
    """Fail fast where nothing listens: Ray's client retries an absent GCS without end."""
    m = re.fullmatch(r"(?:ray://)?\[?([^\]\s/]+?)\]?:(\d{1,5})/?", address.strip())
    if m is None:
        return  # `auto` and other forms Ray resolves itself
    host, port = m.group(1), int(m.group(2))
    try:
        socket.create_connection((host, port), timeout=PROBE_SECONDS).close()
    except OSError as exc:
        raise ClusterUnreachable(
            f"cannot reach the Ray cluster at {address}: nothing answers at {host}:{port} "
            f"({exc.strerror or type(exc).__name__}); start it with `ray start --head` "
            "or give the head node's address"
        ) from exc


def _connect(ray: Any, address: str | None, workers: int) -> None:
    """A cluster at `address`, or a new Ray instance of `workers` CPUs on this machine
    (`address="local"`: never a cluster another program left running here)."""
    if address:
        _probe(address)
    try:
        if address:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
        else:
            ray.init(
                address="local",
                num_cpus=workers,
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
            )
    except Exception as exc:  # ray.init raises ConnectionError, ValueError, RayError…
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        reason = " ".join(str(exc).split())[:400] or type(exc).__name__
        raise ClusterUnreachable(f"cannot reach {where}: {type(exc).__name__}: {reason}") from exc


def task_name(job: JobRef) -> str:
    """The task's name, which Ray shows in `ps` (`ray::kb-batch <job>`) and its dashboard:
    which worker reads which job, printable whatever the job's name holds."""
    shown = "".join(c if c.isprintable() else "?" for c in job.name)
    return f"kb-batch {shown[:100]}"


def _lost(job: JobRef, exc: Exception) -> dict[str, Any]:
    """The result of a task Ray could not bring back (its worker died past the retries, its
    node was lost): a row that says so, never a traceback."""
    reason = " ".join(str(exc).split())[:300]
    return {
        "row": error_row(job.name, f"{type(exc).__name__}: {reason}", WORKER_DIED),
        "pid": 0,
        "peak_rss_kb": 0,
        "seconds": 0.0,
        "cpu_seconds": 0.0,
    }


def run_batch(
    jobs: list[JobRef],
    case_roots: list[str],
    *,
    workers: int = 1,
    address: str | None = None,
    use_cache: bool = True,
    on_row: Callable[[dict[str, Any]], None] = lambda row: None,
    job_timeout: float | None = DEFAULT_JOB_TIMEOUT,
    max_retries: int = DEFAULT_MAX_RETRIES,
    max_failures: int | None = None,
) -> BatchRun:
    """Every job as one Ray task. Ctrl-C (KeyboardInterrupt) passes through, after each row
    that came back has gone to `on_row` and Ray is shut down."""
    import ray

    run = BatchRun()
    started = time.perf_counter()
    owned = not ray.is_initialized()
    if owned:
        _connect(ray, address, workers)
    try:
        # retry_exceptions stays False: an exception inside a job is its error row already;
        # only system failures (a dead worker, a lost node) are retried
        task = ray.remote(num_cpus=1, max_retries=max_retries, retry_exceptions=False)(
            diagnose_shipped
        )
        shipped = [ray.put(load_kb(case_roots, use_cache))]  # compiled once, here
        job_of = {
            task.options(name=task_name(job)).remote(job, shipped, job_timeout): job for job in jobs
        }
        pending = list(job_of)
        while pending:
            done, pending = ray.wait(pending, num_returns=1, timeout=WAIT_TURN_SECONDS)
            for ref in done:
                try:
                    result = ray.get(ref)
                except ray.exceptions.RayError as exc:
                    result = _lost(job_of[ref], exc)
                _collect(run, result, on_row)
            if max_failures is not None and run.failures >= max_failures and pending:
                for ref in pending:
                    ray.cancel(ref, force=True)
                run.stopped = (
                    f"stopped after {run.failures} failed job(s) (--max-failures "
                    f"{max_failures}); {len(pending)} job(s) not run"
                )
                break
    finally:
        if owned:
            ray.shutdown()
    run.rows.sort(key=lambda r: str(r["job"]))
    run.seconds = time.perf_counter() - started
    return run
