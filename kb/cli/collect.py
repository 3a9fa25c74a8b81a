"""`kb collect [-o bundle.tar.gz]`: the node's environment as one redacted bundle that
`kb diagnose --evidence` reads and a user can attach to an issue.

Exit codes: 0 the bundle was written (missing tools are normal and only noted); 2 usage error
or the bundle could not be written."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kb.cli.options import exit_status

EXIT_OK, EXIT_USAGE = 0, 2
EXIT_STATUS = exit_status(
    (EXIT_OK, "the bundle was written (missing tools are normal and only noted)"),
    (EXIT_USAGE, "usage error, or the bundle could not be written"),
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "collect", help="capture this node's environment into a redacted evidence bundle",
        description="Run every capture a case may ask for (pip freeze, collect_env, nvidia-smi "
        "or npu-smi, ulimit, /dev/shm, interfaces, NCCL_/TORCH_/HCCL_/CUDA_ variables, dmesg), "
        "each under a timeout, redact secrets, and write a .tar.gz (or a folder). Secrets "
        "are always redacted; nothing is uploaded.", epilog=EXIT_STATUS,
    )  # fmt: skip
    p.add_argument("-o", "--output", metavar="PATH", type=Path, default=None,
                   help="bundle to write: NAME.tar.gz (default kb-collect-HOST-TIME.tar.gz) "
                   "or a folder")  # fmt: skip
    p.add_argument("--force", action="store_true",
                   help="write into an existing non-empty folder, or replace an existing "
                   "archive (a symbolic link is refused even then)")  # fmt: skip
    p.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="time each capture may take (default 20)",
    )
    p.add_argument(
        "--python",
        metavar="PATH",
        default=None,
        help="the job's interpreter (default: python on PATH)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from kb.collect.bundle import output_refusal
    from kb.collect.collector import DEFAULT_TIMEOUT, collect_to, default_archive_name, gather
    from kb.collect.report import render_collect

    if args.timeout is not None and not 0 < args.timeout <= 3600:
        print("kb collect: --timeout must be between 0 and 3600 seconds", file=sys.stderr)
        return EXIT_USAGE
    out = args.output or Path(default_archive_name())
    why = output_refusal(out, force=args.force)
    if why:
        print(f"kb collect: {why}", file=sys.stderr)
        return EXIT_USAGE
    report = gather(python=args.python, timeout=args.timeout or DEFAULT_TIMEOUT)
    try:
        collect_to(out, report, force=args.force)
    except OSError as exc:
        print(f"kb collect: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    sys.stdout.write(render_collect(report, str(out)))
    return EXIT_OK
