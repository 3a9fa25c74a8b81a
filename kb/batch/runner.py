"""Running a batch as Ray tasks, one per job: on a local Ray instance started for the batch
(`num_cpus=workers`, shut down at the end) or on an existing cluster (`address`).

Rows come back as tasks finish (`on_row` sees each), and the batch's figures (wall time,
each worker's peak memory) are kept for the summary and the benchmark.
"""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kb.batch.jobs import JobRef
from kb.batch.task import diagnose_shipped, load_kb

RAY_HINT = "pip install 'distkb[ray]'"


@dataclass
class BatchRun:
    rows: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    worker_peak_rss_kb: dict[int, int] = field(default_factory=dict)  # pid -> peak
    task_seconds: float = 0.0
    cpu_seconds: float = 0.0  # CPU time the tasks used: the work, whatever the machine's load


def _collect(
    run: BatchRun, result: dict[str, Any], on_row: Callable[[dict[str, Any]], None]
) -> None:
    run.rows.append(result["row"])
    pid = int(result["pid"])
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


def run_batch(
    jobs: list[JobRef],
    case_roots: list[str],
    *,
    workers: int = 1,
    address: str | None = None,
    use_cache: bool = True,
    on_row: Callable[[dict[str, Any]], None] = lambda row: None,
) -> BatchRun:
    import ray

    run = BatchRun()
    started = time.perf_counter()
    owned = not ray.is_initialized()
    if owned:
        _connect(ray, address, workers)
    try:
        task = ray.remote(num_cpus=1, max_retries=0)(diagnose_shipped)
        shipped = [ray.put(load_kb(case_roots, use_cache))]  # compiled once, here
        pending = [task.remote(job, shipped) for job in jobs]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                _collect(run, ray.get(ref), on_row)
    finally:
        if owned:
            ray.shutdown()
    run.rows.sort(key=lambda r: str(r["job"]))
    run.seconds = time.perf_counter() - started
    return run
