"""`kb batch` loses nothing (issue 32): a hanging job becomes a `timeout` row, a worker killed
as the OOM killer would becomes a `worker-died` row after Ray's retries, Ctrl-C keeps every
finished row, and `--resume` runs the rest.

A hanging job is a remote job (read through fsspec, as from object storage) holding a FIFO
nobody writes: the copy blocks in `open`, as on a stuck network filesystem. No assertion is
on elapsed time; the waits below only keep a broken test from waiting for ever.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import threading
import time
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from dsl.api import DEFAULT_CASES
from kb.batch.jobs import JobRef
from kb.batch.rows import row_from_report
from kb.batch.runner import task_name
from kb.batch.task import diagnose_job, load_kb
from kb.cli.main import main

CASES = Path(DEFAULT_CASES)
OOM_CASE = "rank-oom-cascades-to-watchdog-timeout"
OOM_FIXTURE = CASES / f"{OOM_CASE}/fixtures/positive/a100x16-4node-zero3-oom-rank11-two-nodes"
GIVE_UP = 600.0  # seconds a helper thread waits before it stops trying (never asserted)
RELEASE = 120.0  # seconds after Ctrl-C before a stuck job is let go (never asserted)


def _good_jobs(root: Path) -> list[JobRef]:
    """Jobs whose rows do not move while other sessions edit cases: the OOM fixture, an
    empty folder (no-match)."""
    shutil.copytree(OOM_FIXTURE, root / "a-oom")
    (root / "b-empty").mkdir()
    shutil.copytree(OOM_FIXTURE, root / "e-oom-again")
    return [JobRef(name=n, location=str(root / n)) for n in ("a-oom", "b-empty", "e-oom-again")]


def _fifo_job(root: Path, name: str) -> tuple[JobRef, Path]:
    """A remote job: the OOM fixture's files, then a FIFO (copied last, names sort so)."""
    folder = root / name
    shutil.copytree(OOM_FIXTURE, folder)
    fifo = folder / "zz-stuck.log"
    os.mkfifo(fifo)
    return JobRef(name=name, location=f"file://{folder}", remote=True), fifo


def _expected(job: Path) -> dict[str, Any]:
    out = io.StringIO()
    with redirect_stdout(out):
        main(["diagnose", "--evidence", str(job), "--format", "json"])
    return row_from_report(job.name, json.loads(out.getvalue()))


def _rows(path: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    return {r["job"]: r for r in rows}


def _batch(monkeypatch: pytest.MonkeyPatch, jobs: list[JobRef], *args: str) -> int:
    """`kb batch` on exactly these jobs (remote ones included, which a folder listing of
    local paths would not give)."""
    monkeypatch.setattr("kb.batch.jobs.find_jobs", lambda sources: (list(jobs), []))
    return main(["batch", "unused", *args])


def test_a_blocking_read_stops_at_the_time_limit_with_what_was_copied(tmp_path: Path) -> None:
    """In this process (no Ray): the copy blocks on the FIFO, the time limit stops it, and the
    row diagnoses the fixture files copied before it."""
    job, _ = _fifo_job(tmp_path, "stuck")
    row = diagnose_job(job, load_kb([str(CASES)]), timeout=10)["row"]
    assert row["verdict"] == "timeout"
    assert "job time limit of 10 s" in row["error"] and "zz-stuck.log" in row["error"]
    assert row["case_id"] == OOM_CASE  # from the files read before the limit


def test_a_local_job_past_its_time_limit_is_a_timeout_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read that never returns on a local path (a stuck mount) is stopped as well."""
    from kb.batch import task

    fifo = tmp_path / "never"
    os.mkfifo(fifo)

    def stuck(kb: Any, path: str) -> dict[str, Any]:
        with open(fifo, "rb") as fh:  # blocks: nobody opens the other end
            fh.read()
        raise AssertionError("unreachable")

    monkeypatch.setattr(task, "_diagnose", stuck)
    row = diagnose_job(JobRef(name="local", location=str(tmp_path)), None, timeout=1)["row"]
    assert row["verdict"] == "timeout" and "while reading the evidence" in row["error"]


def _workers_running(job: str) -> list[int]:
    """Ray names a worker's process after its task (`ray::kb-batch <job>`)."""
    title = f"ray::{task_name(JobRef(name=job, location=''))}".encode()
    pids = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as fh:
                if fh.read().split(b"\0")[0].strip() == title:
                    pids.append(int(entry.name))
        except OSError:
            continue
    return pids


@pytest.mark.slow  # starts Ray
def test_a_hanging_job_and_a_killed_worker_leave_every_other_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("ray", reason="extra `ray` (pip install 'distkb[ray]')")
    good = _good_jobs(tmp_path)
    hang, _ = _fifo_job(tmp_path, "c-hang")
    killed, _ = _fifo_job(tmp_path, "d-killed")
    retries = 1
    kills: list[int] = []

    def killer() -> None:
        """SIGKILL each worker that runs `d-killed` (stuck on its FIFO), as the OOM killer
        would, until Ray's retries are spent."""
        end = time.monotonic() + GIVE_UP
        while len(kills) <= retries and time.monotonic() < end:
            for pid in _workers_running("d-killed"):
                if pid not in kills:
                    os.kill(pid, signal.SIGKILL)
                    kills.append(pid)
            time.sleep(0.2)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    out = tmp_path / "r.jsonl"
    args = ["-o", str(out), "--workers", "2", "--job-timeout", "30", "--max-retries", "1"]
    status = _batch(monkeypatch, [*good, hang, killed], *args)
    thread.join(timeout=5)
    err = capsys.readouterr().err
    assert status == 1 and "Traceback" not in err
    rows = _rows(out)
    assert sorted(rows) == ["a-oom", "b-empty", "c-hang", "d-killed", "e-oom-again"]
    for job in good:
        assert rows[job.name] == _expected(Path(job.location)), job.name
    assert rows["c-hang"]["verdict"] == "timeout" and rows["c-hang"]["case_id"] == OOM_CASE
    assert len(kills) == retries + 1  # the first run and each retry
    assert rows["d-killed"]["verdict"] == "worker-died", rows["d-killed"]


@pytest.mark.slow  # starts Ray
def test_ctrl_c_keeps_the_finished_rows_and_resume_runs_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real SIGINT to this process mid-batch (its handler set here: a shell running the
    tests in the background ignores SIGINT, and Python then would too)."""
    pytest.importorskip("ray", reason="extra `ray` (pip install 'distkb[ray]')")
    good = _good_jobs(tmp_path)
    hang, fifo = _fifo_job(tmp_path, "c-hang")
    out = tmp_path / "r.jsonl"
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)

    finished = threading.Event()

    def interrupt_after_two_rows() -> None:
        """SIGINT once two rows are out. Should the batch not stop on it, the stuck job is
        let go after a while, so a batch deaf to Ctrl-C fails the test (its row appears)
        rather than hanging it."""
        end = time.monotonic() + GIVE_UP
        while time.monotonic() < end:
            if out.exists() and len(out.read_text().splitlines()) >= 2:
                os.kill(os.getpid(), signal.SIGINT)
                break
            time.sleep(0.2)
        if not finished.wait(RELEASE):
            while not finished.is_set():
                try:
                    os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # EOF for the reader
                except OSError:  # no reader yet
                    time.sleep(0.2)

    thread = threading.Thread(target=interrupt_after_two_rows, daemon=True)
    thread.start()
    try:
        status = _batch(monkeypatch, [*good, hang], "-o", str(out), "--workers", "2")
    finally:
        finished.set()
        signal.signal(signal.SIGINT, previous)
    thread.join(timeout=5)
    assert status == 130
    first = _rows(out)
    assert len(first) >= 2 and "c-hang" not in first  # the hanging job was still running
    expected = {j.name: _expected(Path(j.location)) for j in good}
    for name, row in first.items():
        assert row == expected[name], name

    fifo.unlink()  # the stuck filesystem answers again
    fifo.write_text("")
    status = _batch(monkeypatch, [*good, hang], "-o", str(out), "--workers", "2", "--resume")
    assert status == 0
    rows = _rows(out)
    assert sorted(rows) == ["a-oom", "b-empty", "c-hang", "e-oom-again"]
    assert {n: rows[n] for n in first} == first  # kept, not run again
    for name in expected:
        assert rows[name] == expected[name], name
    assert rows["c-hang"]["case_id"] == OOM_CASE
