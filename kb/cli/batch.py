"""`kb batch JOBS... -o results.jsonl`: diagnose every job folder or archive under JOBS (local
folders or fsspec URLs) as Ray tasks, one per job; one result row per job and a summary of
the top causes. Local Ray by default (`--workers` CPUs), an existing cluster with `--address`.

Rows are written as jobs finish, so an interrupted batch keeps every finished row and
`--resume` runs only the jobs without one. A job past `--job-timeout` becomes a `timeout`
row, one whose worker died past Ray's retries a `worker-died` row; the batch goes on.

Exit codes: 0 every job diagnosed (matched or not); 1 some jobs failed (error, timeout or
worker-died rows); 2 usage error, no jobs found, the extra `ray` is not installed, or Ray
cannot start or reach the cluster; 3 stopped at `--max-failures` (`--resume` runs the
rest); 130 interrupted (Ctrl-C), the finished rows written.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

from kb.cli.common import add_cases_option, case_roots
from kb.cli.options import exit_status

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_STOPPED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_STATUS = exit_status(
    (EXIT_OK, "every job was diagnosed (matched or not)"),
    (EXIT_ERRORS, "some jobs failed (their rows say error, timeout or worker-died)"),
    (EXIT_USAGE, "usage error, no jobs found, the extra `ray` is not installed, or Ray cannot "
     "start or reach the cluster"),
    (EXIT_STOPPED, "stopped at --max-failures; the rows so far are written, --resume runs "
     "the rest"),
    (EXIT_INTERRUPTED, "interrupted (Ctrl-C); the finished rows are written"),
)  # fmt: skip
MAX_LOCAL_WORKERS = 64
DEFAULT_JOB_TIMEOUT = 600.0  # as kb.batch.task's, without importing it (and Ray's kin) here
DEFAULT_MAX_RETRIES = 2


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "batch",
        help="diagnose many jobs' evidence as Ray tasks (one row per job)",
        description="Diagnose each job folder or archive directly under JOBS (local folders or "
        "fsspec URLs such as s3://bucket/jobs/) as one Ray task per job.",
        epilog=EXIT_STATUS,
    )
    p.add_argument("jobs", nargs="+", metavar="JOBS", help="a folder of jobs, or an fsspec URL")
    p.add_argument(
        "-o",
        "--output",
        type=Path,
        required=True,
        metavar="FILE",
        help="results: .jsonl (JSON lines) or .parquet",
    )
    p.add_argument(
        "--format",
        choices=("jsonl", "parquet"),
        default=None,
        help="default: from the output's suffix",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="CPUs of the local Ray instance (default 1); ignored with --address",
    )
    p.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="an existing Ray cluster (e.g. ray://head:10001 or auto)",
    )
    p.add_argument(
        "--summary",
        type=Path,
        default=None,
        metavar="FILE",
        help="also write the summary of top causes as JSON",
    )
    p.add_argument(
        "--job-timeout",
        type=float,
        default=DEFAULT_JOB_TIMEOUT,
        metavar="SECONDS",
        help=f"time limit per job (default {DEFAULT_JOB_TIMEOUT:g}; 0: none); a job past it "
        "is a timeout row holding what was read before",
    )
    p.add_argument(
        "--max-failures",
        type=int,
        default=None,
        metavar="N",
        help="stop the batch after N failed jobs (error, timeout, worker-died; default: never)",
    )
    p.add_argument(
        "--max-retries",
        type=int,
        default=DEFAULT_MAX_RETRIES,
        metavar="N",
        help=f"runs of a job again when its worker died (default {DEFAULT_MAX_RETRIES})",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="keep the rows already in the output and run only the jobs without one",
    )
    add_cases_option(p)
    p.set_defaults(func=run)


def _missing(modules: list[str]) -> list[str]:
    return [m for m in modules if importlib.util.find_spec(m) is None]


def _bad_limits(args: argparse.Namespace) -> str | None:
    if not 1 <= args.workers <= MAX_LOCAL_WORKERS:
        return f"--workers must be 1..{MAX_LOCAL_WORKERS}"
    if not 0 <= args.job_timeout <= 7 * 86400:  # also refuses nan
        return "--job-timeout must be 0 (none) to 604800 seconds"
    if args.max_failures is not None and args.max_failures < 1:
        return "--max-failures must be 1 or more"
    if not 0 <= args.max_retries <= 100:
        return "--max-retries must be 0..100"
    return None


def run(args: argparse.Namespace) -> int:
    from kb.batch.output import RowStream, render_summary, summary
    from kb.batch.rows import FAILED

    fmt = args.format or ("parquet" if args.output.suffix == ".parquet" else "jsonl")
    needed = (
        ["ray"]
        + (["pyarrow"] if fmt == "parquet" else [])
        + (["fsspec"] if any("://" in j for j in args.jobs) else [])
    )
    missing = _missing(needed)
    if missing:
        print(f"kb batch: needs {', '.join(missing)}: pip install 'distkb[ray]'", file=sys.stderr)
        return EXIT_USAGE
    problem = _bad_limits(args)
    if problem:
        print(f"kb batch: {problem}", file=sys.stderr)
        return EXIT_USAGE
    from kb.batch.jobs import find_jobs
    from kb.batch.runner import ClusterUnreachable, run_batch

    jobs, skipped = find_jobs(args.jobs)
    for line in skipped[:20]:
        print(f"kb batch: skipped {line}", file=sys.stderr)
    if not jobs:
        print("kb batch: no job folders or archives found", file=sys.stderr)
        return EXIT_USAGE
    stream = RowStream(args.output, fmt)
    stream.resume = args.resume
    try:
        earlier = stream.previous() if args.resume else []
    except (OSError, ValueError) as exc:  # pyarrow's errors are ValueErrors or OSErrors
        print(f"kb batch: cannot read {args.output} to resume: {exc}", file=sys.stderr)
        return EXIT_USAGE
    done = {str(r["job"]) for r in earlier}
    todo = [j for j in jobs if j.name not in done]
    if args.resume:
        print(f"kb batch: resuming: {len(jobs) - len(todo)} job(s) already have a row, "
              f"{len(todo)} to run", file=sys.stderr)  # fmt: skip
    roots = [str(r) for r in case_roots(args)]
    rows: list[dict[str, object]] = []

    def keep(row: dict[str, object]) -> None:
        rows.append(row)  # first: a Ctrl-C while writing still finds it for the final file
        stream.write(row)

    status, seconds, stopped = EXIT_OK, 0.0, ""
    try:
        if todo:
            result = run_batch(
                todo,
                roots,
                workers=args.workers,
                address=args.address,
                use_cache=not args.no_cache,
                on_row=keep,
                job_timeout=args.job_timeout or None,
                max_retries=args.max_retries,
                max_failures=args.max_failures,
            )
            seconds, stopped = result.seconds, result.stopped
    except ClusterUnreachable as exc:  # before any row: the output stays as it was
        print(f"kb batch: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        status = EXIT_INTERRUPTED
        stopped = f"interrupted: {len(rows)} finished row(s) written, {len(todo) - len(rows)} " \
                  "job(s) not run (--resume runs them)"  # fmt: skip
    everything = earlier + rows
    stream.finish(everything)
    data = summary(everything)
    data["seconds"] = round(seconds, 2)
    if args.summary:
        args.summary.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    sys.stdout.write(render_summary(data))
    print(f"{args.output}: {len(everything)} row(s) in {seconds:.1f} s")
    if stopped:
        print(f"kb batch: {stopped}", file=sys.stderr)
        return status or EXIT_STOPPED
    return EXIT_ERRORS if any(r["verdict"] in FAILED for r in everything) else EXIT_OK
