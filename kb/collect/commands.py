"""Running one capture command: a timeout, bounded output, and a plain note when the tool is
missing or fails. The command never gets a terminal or standard input, and is killed with its
whole process group when it runs too long or prints too much."""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

OUTPUT_LIMIT = 4 << 20  # bytes kept of one capture's output


@dataclass(kw_only=True)
class Output:
    """What one command printed (stdout and stderr together, in order) and how it ended."""

    command: str  # as shown to the user
    status: int | None = None  # exit status; None when it did not run or was killed
    data: bytes = b""
    note: str = ""  # "not found", "timed out after 20 s", "output cut at 4 MiB", ...
    seconds: float = 0.0
    detail: str = ""  # the first line a failing tool printed (shown, not kept in the manifest)

    @property
    def ok(self) -> bool:
        return self.status == 0 and not self.note


def shown(argv: Sequence[str]) -> str:
    """The command as a person would type it."""
    import shlex

    return " ".join(shlex.quote(a) for a in argv)


def run_command(
    argv: Sequence[str],
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
    limit: int = OUTPUT_LIMIT,
    display: str | None = None,
    stderr: bool = True,
) -> Output:
    """Runs `argv` (looked up on env's PATH) and returns its bounded output, stderr included
    unless `stderr` is False; never raises."""
    out = Output(command=display or shown(argv))
    path = (env or os.environ).get("PATH", os.defpath)
    exe = argv[0] if os.sep in argv[0] else shutil.which(argv[0], path=path)
    if exe is None:
        out.note = f"not found: `{argv[0]}` is not on PATH"
        return out
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            [exe, *argv[1:]], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if stderr else subprocess.DEVNULL, env=dict(env) if env is not None else None,
            start_new_session=True,
        )  # fmt: skip
    except OSError as exc:
        out.note = f"could not start: {exc.strerror or exc}"
        return out
    out.data, out.note = _read_bounded(proc, timeout, limit)
    out.status = proc.returncode if not out.note.startswith("timed out") else None
    out.seconds = time.monotonic() - start
    return out


def _read_bounded(proc: subprocess.Popen[bytes], timeout: float, limit: int) -> tuple[bytes, str]:
    assert proc.stdout is not None
    chunks: list[bytes] = []
    size = 0
    note = ""
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                note = f"timed out after {timeout:g} s (output so far kept)"
                break
            if not sel.select(timeout=min(left, 0.5)):
                continue
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            chunks.append(chunk[: limit - size])
            size += len(chunk)
            if size >= limit:
                note = f"output cut at {limit // 1024} KiB"
                break
    if note:
        _kill_group(proc)
    proc.stdout.close()
    try:
        proc.wait(timeout=max(deadline - time.monotonic(), 1.0))
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        proc.wait()
        note = note or f"timed out after {timeout:g} s (output so far kept)"
    return b"".join(chunks), note


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
