"""`kb run -- <launcher>`: launch a job so it leaves complete evidence.

The launcher runs in its own process group with the documented debug switches added to its
environment; its stdout/stderr pass through to the terminal and into the bundle; `kb collect`
runs at start; a progress watchdog takes py-spy stacks of every rank process when nothing has
moved for `stall_after` seconds; SIGINT/SIGTERM/SIGHUP are forwarded to the launcher's group
and escalated when it does not stop (`stopping.py`), and nothing of the group outlives the run;
the launcher's exit status is kept and returned."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from kb.collect.bundle import claim_folder, open_new, private_dir, write_new
from kb.collect.collector import collect_to, gather
from kb.collect.launch import debug_environment, launcher_argv
from kb.collect.observations import stall_sentences
from kb.collect.processes import rank_processes
from kb.collect.scrub import scrub_tree
from kb.collect.stacks import MISSING, StackDump, dump_stacks, find_py_spy
from kb.collect.stopping import Stopper, stop_leftovers
from kb.collect.watchdog import ProgressWatch
from kb.redact.secrets import SecretRedactor

SCHEMA = "kb.run/v1"


@dataclass(kw_only=True)
class RunOptions:
    argv: list[str]
    bundle: Path
    stall_after: float = 300.0
    heavy: bool = False
    stop_on_stall: bool = False
    grace: float = 10.0  # seconds between the steps SIGINT → SIGTERM → SIGKILL
    poll: float = 0.25  # seconds between looks at the job (its processes, its logs)
    force: bool = False  # the bundle folder may already hold files (kb run --force)


@dataclass(kw_only=True)
class RunResult:
    exit_code: int
    status: int | None  # the launcher's returncode (negative: killed by that signal)
    stalls: list[list[StackDump]] = field(default_factory=list)
    forwarded: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    environment: dict[str, str] = field(default_factory=dict)
    command: list[str] = field(default_factory=list)
    seen: dict[int, int] = field(default_factory=dict)  # rank -> pid of each rank process seen


class _Tee:
    """Copies one pipe to the terminal and to a file, counting the bytes (progress)."""

    def __init__(self, pipe: IO[bytes], terminal: IO[bytes], path: Path) -> None:
        self.bytes = 0
        self._thread = threading.Thread(target=self._pump, args=(pipe, terminal, path),
                                        daemon=True)  # fmt: skip
        self._thread.start()

    def _pump(self, pipe: IO[bytes], terminal: IO[bytes], path: Path) -> None:
        with open_new(path, append=True) as log:
            for chunk in iter(lambda: pipe.read1(65536), b""):  # type: ignore[attr-defined]
                self.bytes += len(chunk)
                log.write(chunk)
                log.flush()
                try:
                    terminal.write(chunk)
                    terminal.flush()
                except (OSError, ValueError):
                    pass  # the terminal went away; the log keeps everything

    def join(self) -> None:
        self._thread.join(timeout=30)


def _exit_code(status: int) -> int:
    return status if status >= 0 else 128 - status


def prepare_bundle(bundle: Path) -> None:
    """The bundle and its sub-folders, 0700, none of them a link (`bundle.py`)."""
    claim_folder(bundle, force=True)  # kb run's CLI already refused a non-empty one
    for sub in ("logs", "nccl", "flight-recorder", "py-spy"):
        private_dir(bundle / sub)


def _tighten(bundle: Path) -> None:
    """What the job wrote into the bundle becomes private too (0600 files, 0700 folders);
    links are left as they are, never followed."""
    for dirpath, dirs, files in os.walk(bundle):
        for name in dirs + files:
            path = os.path.join(dirpath, name)
            try:
                st = os.lstat(path)
                if stat.S_ISDIR(st.st_mode):
                    os.chmod(path, 0o700)
                elif stat.S_ISREG(st.st_mode):
                    os.chmod(path, 0o600)
            except OSError:
                continue


def run_job(
    opts: RunOptions,
    terminal_out: IO[bytes],
    terminal_err: IO[bytes],
    say: Callable[[str], None],
) -> RunResult:
    """Runs the launcher to its end; never raises for what the job does."""
    bundle = Path(os.path.abspath(opts.bundle))  # not resolve(): a link is refused, not followed
    prepare_bundle(bundle)
    report = gather(dict(os.environ))
    collect_to(bundle / "collect", report, force=opts.force)
    missing = sum(1 for c in report.captured if c.file not in report.files)
    say(f"kb run: environment captured in {bundle}/collect ({len(report.files) - 1} files, "
        f"{missing} tool(s) missing, {report.seconds:.1f} s)")  # fmt: skip
    if find_py_spy() is None:
        say(f"kb run: warning: {MISSING}")
    argv, torchrun = launcher_argv(opts.argv, str(bundle))
    added = debug_environment(str(bundle), heavy=opts.heavy, current=os.environ,
                              torchrun=torchrun)  # fmt: skip
    result = RunResult(exit_code=0, status=None, environment=added, command=argv)
    say("kb run: environment added: " + " ".join(f"{k}={v}" for k, v in added.items()))
    stopper = Stopper(opts.grace)
    with stopper.installed():  # before the launcher starts: see stopping.py
        try:
            proc = subprocess.Popen(argv, env={**os.environ, **added}, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
        except OSError as exc:
            say(f"kb run: cannot start {argv[0]}: {exc.strerror or exc}")
            result.exit_code, result.notes = 127, [f"The launcher `{argv[0]}` could not start."]
            _write_records(bundle, opts, result)
            _scrub(bundle, say)
            _tighten(bundle)
            return result
        stopper.attach(proc.pid)
        assert proc.stdout is not None and proc.stderr is not None
        tees = [_Tee(proc.stdout, terminal_out, bundle / "logs" / "launcher.stdout.log"),
                _Tee(proc.stderr, terminal_err, bundle / "logs" / "launcher.stderr.log")]  # fmt: skip
        _supervise(proc, opts, bundle, tees, result, stopper, say)
        for line in stopper.tick():
            say(line)
        result.forwarded = list(stopper.received)
        left = stop_leftovers(proc.pid, say)
    if left:
        result.notes.append(f"{len(left)} process(es) of the job outlived its launcher; kb run "
                            "stopped them.")  # fmt: skip
    for tee in tees:
        tee.join()
    result.status = proc.returncode
    result.exit_code = _exit_code(proc.returncode)
    if result.seen:
        ranks = ", ".join(map(str, sorted(result.seen)))
        result.notes.insert(0, f"kb run saw {len(result.seen)} rank processes (ranks {ranks}).")
    how = (f"signal {-proc.returncode} ({signal.Signals(-proc.returncode).name})"
           if proc.returncode < 0 else f"exit status {proc.returncode}")  # fmt: skip
    result.notes.append(f"The launcher ended with {how}.")  # its command: kb-run.json
    _write_records(bundle, opts, result)
    _scrub(bundle, say)
    _tighten(bundle)
    return result


def _scrub(bundle: Path, say: Callable[[str], None]) -> None:
    """The job's own files are redacted like the captures, once it has ended."""
    redactor = SecretRedactor(dict(os.environ))
    changed = scrub_tree(bundle, redactor, skip=("collect",))
    if changed:
        say("kb run: redacted (names, never values): " + "; ".join(redactor.summary()))


def _supervise(
    proc: subprocess.Popen[bytes],
    opts: RunOptions,
    bundle: Path,
    tees: list[_Tee],
    result: RunResult,
    stopper: Stopper,
    say: Callable[[str], None],
) -> None:
    watch = ProgressWatch([bundle / "logs", bundle / "nccl", bundle / "ascend-log"],
                          lambda: sum(t.bytes for t in tees))  # fmt: skip
    armed = True
    while proc.poll() is None:
        try:
            proc.wait(timeout=opts.poll)
            break
        except subprocess.TimeoutExpired:
            pass
        for p in rank_processes(proc.pid):
            if p.rank is not None:
                result.seen.setdefault(p.rank, p.pid)
        quiet = watch.check()
        if quiet == 0:
            armed = True
        if armed and quiet >= opts.stall_after:
            armed = False
            _on_stall(proc, opts, bundle, result, say)
            if opts.stop_on_stall:
                say("kb run: stopping the stalled job (--stop-on-stall): SIGTERM")
                result.notes.append("kb run stopped the stalled job with SIGTERM "
                                    "(--stop-on-stall).")  # fmt: skip
                stopper.start_stopping(signal.SIGTERM)
        for line in stopper.tick():
            say(line)


def _on_stall(
    proc: subprocess.Popen[bytes],
    opts: RunOptions,
    bundle: Path,
    result: RunResult,
    say: Callable[[str], None],
) -> None:
    processes = rank_processes(proc.pid)
    result.seen.update({p.rank: p.pid for p in processes if p.rank is not None})
    tag = "" if not result.stalls else f".stall{len(result.stalls) + 1}"
    say(f"kb run: no progress for {opts.stall_after:g} s; dumping the stacks of "
        f"{len(processes)} process(es) with py-spy")  # fmt: skip
    dumps = dump_stacks(processes, bundle, tag)
    result.stalls.append(dumps)
    for d in dumps:
        state = f"→ {d.file}" if d.ok else f"failed: {d.note}"
        say(f"  rank {d.process.rank} (pid {d.process.pid}) {state}")
    good = {d.process.rank: bundle / d.file for d in dumps if d.ok and d.process.rank is not None}
    result.notes.extend(stall_sentences(good, opts.stall_after))


def _write_records(bundle: Path, opts: RunOptions, result: RunResult) -> None:
    """kb-run.json (what was run, with what, how it ended) and kb-run-notes.md."""
    record = {
        "schema": SCHEMA, "command_given": opts.argv, "command_run": result.command,
        "environment_added": result.environment, "stall_after_seconds": opts.stall_after,
        "heavy": opts.heavy, "status": result.status, "exit_code": result.exit_code,
        "signals_forwarded": result.forwarded,
        "rank_processes": {str(r): pid for r, pid in sorted(result.seen.items())},
        "stalls": [[{"rank": d.process.rank, "pid": d.process.pid, "file": d.file, "ok": d.ok,
                     "note": d.note} for d in stall] for stall in result.stalls],
    }  # fmt: skip
    write_new(bundle / "kb-run.json", json.dumps(record, indent=2) + "\n")
    text = "# What kb run observed\n\n" + "".join(f"- {n}\n" for n in result.notes)
    write_new(bundle / "kb-run-notes.md", text)
