"""`kb batch JOBS... -o results.jsonl`: diagnose every job folder or archive under JOBS (local
folders or fsspec URLs) as Ray tasks, one per job; one result row per job and a summary of
the top causes. Local Ray by default (`--workers` CPUs), an existing cluster with `--address`.

Exit codes: 0 every job diagnosed (matched or not); 1 some jobs failed to read (error rows);
2 usage error, no jobs found, the extra `ray` is not installed, or Ray cannot start or
reach the cluster.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

from kb.cli.common import add_cases_option, case_roots
from kb.cli.options import exit_status

EXIT_OK, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2
EXIT_STATUS = exit_status(
    (EXIT_OK, "every job was diagnosed (matched or not)"),
    (EXIT_ERRORS, "some jobs could not be read (their rows say error)"),
    (EXIT_USAGE, "usage error, no jobs found, the extra `ray` is not installed, or Ray cannot "
     "start or reach the cluster"),
)  # fmt: skip
MAX_LOCAL_WORKERS = 64


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
    add_cases_option(p)
    p.set_defaults(func=run)


def _missing(modules: list[str]) -> list[str]:
    return [m for m in modules if importlib.util.find_spec(m) is None]


def run(args: argparse.Namespace) -> int:
    from kb.batch.output import render_summary, summary, write_jsonl, write_parquet
    from kb.batch.rows import ERROR

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
    if not 1 <= args.workers <= MAX_LOCAL_WORKERS:
        print(f"kb batch: --workers must be 1..{MAX_LOCAL_WORKERS}", file=sys.stderr)
        return EXIT_USAGE
    from kb.batch.jobs import find_jobs
    from kb.batch.runner import ClusterUnreachable, run_batch

    jobs, skipped = find_jobs(args.jobs)
    for line in skipped[:20]:
        print(f"kb batch: skipped {line}", file=sys.stderr)
    if not jobs:
        print("kb batch: no job folders or archives found", file=sys.stderr)
        return EXIT_USAGE
    roots = [str(r) for r in case_roots(args)]
    try:
        result = run_batch(
            jobs, roots, workers=args.workers, address=args.address, use_cache=not args.no_cache
        )
    except ClusterUnreachable as exc:
        print(f"kb batch: {exc}", file=sys.stderr)
        return EXIT_USAGE
    (write_parquet if fmt == "parquet" else write_jsonl)(result.rows, args.output)
    data = summary(result.rows)
    data["seconds"] = round(result.seconds, 2)
    if args.summary:
        args.summary.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    sys.stdout.write(render_summary(data))
    print(f"{args.output}: {len(result.rows)} row(s) in {result.seconds:.1f} s")
    return EXIT_ERRORS if any(r["verdict"] == ERROR for r in result.rows) else EXIT_OK
