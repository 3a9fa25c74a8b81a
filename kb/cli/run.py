"""`kb run [options] -- <launcher command>`: launch a job so it leaves complete evidence, and
diagnose the bundle when it ends badly.

Exit code: the launcher's own (128+N when a signal N ended it); 2 usage error (before launch)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from kb.cli.common import add_cases_option
from kb.cli.options import exit_status

EXIT_USAGE = 2


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run", help="launch a job (torchrun, accelerate, deepspeed, msrun...) with evidence on",
        description="Run a launcher with cheap debug switches in its environment, one log per "
        "process, kb collect at start, py-spy stacks of every rank when it stops making "
        "progress, and kb diagnose on the bundle when it ends badly. SIGINT, SIGTERM and "
        "SIGHUP are passed to the launcher's process group and escalated to SIGTERM, then "
        "SIGKILL, when it does not stop within --grace seconds; nothing of the job is left "
        "running when kb run ends; its exit code is kept. Put the launch command after --.",
        epilog=exit_status(("N", "the launcher's own exit code (128+S when signal S ended it; "
                            "0 for a clean run)"),
                           (EXIT_USAGE, "usage error, found before the launch")),
    )  # fmt: skip
    p.add_argument(
        "--bundle",
        type=Path,
        default=None,
        metavar="DIR",
        help="evidence folder to fill (default ./kb-run-TIME)",
    )
    p.add_argument(
        "--stall-after",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="no log output for this long = stalled: take stacks (default 300)",
    )
    p.add_argument(
        "--stop-on-stall",
        action="store_true",
        help="after taking the stacks of a stalled job, stop it (SIGTERM, then "
        "SIGKILL after --grace seconds); default: leave it to its own watchdog",
    )
    p.add_argument(
        "--grace",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="how long a job may take to stop after each signal before kb run sends the next "
        "one (SIGINT or SIGHUP, then SIGTERM, then SIGKILL; default 10)",
    )
    p.add_argument(
        "--heavy",
        action="store_true",
        help="also TORCH_DISTRIBUTED_DEBUG=DETAIL, HCCL entry logs, Ascend INFO "
        "logs: slower, but every collective is checked and logged",
    )
    p.add_argument("--force", action="store_true",
                   help="fill an existing non-empty --bundle folder (files kb run writes are "
                   "replaced; a symbolic link is refused even then)")  # fmt: skip
    add_cases_option(p)
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- launcher and its arguments")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from kb.collect.bundle import OutputRefused, claim_folder
    from kb.collect.runner import RunOptions, run_job

    command = list(args.command)
    if command[:1] == ["--"]:
        command = command[1:]
    if not command:
        print("kb run: give the launch command after --, e.g. kb run -- torchrun "
              "--nproc-per-node 4 train.py", file=sys.stderr)  # fmt: skip
        return EXIT_USAGE
    if not 0 < args.stall_after <= 7 * 24 * 3600:
        print("kb run: --stall-after must be a positive number of seconds", file=sys.stderr)
        return EXIT_USAGE
    if not 0 < args.grace <= 3600:
        print("kb run: --grace must be a positive number of seconds, at most 3600",
              file=sys.stderr)  # fmt: skip
        return EXIT_USAGE
    bundle = args.bundle or Path(time.strftime("kb-run-%Y%m%d-%H%M%S", time.gmtime()))
    try:  # before the launch: a folder it may not fill is a usage error, not a lost run
        claim_folder(bundle, force=args.force)
    except OSError as exc:
        why = str(exc) if isinstance(exc, OutputRefused) else exc.strerror or str(exc)
        print(f"kb run: cannot use {bundle} as the bundle: {why}", file=sys.stderr)
        return EXIT_USAGE

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    opts = RunOptions(argv=command, bundle=bundle, stall_after=args.stall_after,
                      heavy=args.heavy, stop_on_stall=args.stop_on_stall,
                      grace=args.grace, force=args.force)  # fmt: skip
    result = run_job(opts, sys.stdout.buffer, sys.stderr.buffer, say)
    sys.stdout.flush()
    if result.exit_code == 0 and not result.stalls:
        print(f"kb run: clean run: the launcher exited 0 and never stalled; evidence in "
              f"{bundle}")  # fmt: skip
        return 0
    print(f"kb run: the job ended badly (exit code {result.exit_code}"
          f"{', stalled' if result.stalls else ''}); diagnosing {bundle}", flush=True)  # fmt: skip
    _diagnose(args, bundle)
    return result.exit_code


def _diagnose(args: argparse.Namespace, bundle: Path) -> None:
    from kb.cli.common import load_kb
    from kb.match.diagnose import diagnose_bundle, read_bundle
    from kb.report.text import write_text

    kb = load_kb(args)
    diagnosis = diagnose_bundle(kb, read_bundle(kb, str(bundle)))
    write_text(diagnosis, kb, pager=False)  # its output follows the job's, in the same stream
