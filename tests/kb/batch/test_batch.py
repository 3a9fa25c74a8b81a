"""`kb batch` on a local Ray instance: one row per job, each equal to what
`kb diagnose --format json` says for that job; Ray is shut down afterwards."""

from __future__ import annotations

import io
import json
import shutil
import sys
import tarfile
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from dsl.api import DEFAULT_CASES
from kb.batch.jobs import JobRef, find_jobs
from kb.batch.output import summary, write_jsonl, write_parquet
from kb.batch.rows import COLUMNS, row_from_report
from kb.batch.task import diagnose_job, load_kb
from kb.cli.main import main

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import generate_evidence as gen

pytestmark = pytest.mark.slow  # starts Ray

CASES = Path(DEFAULT_CASES)
OOM = CASES / "rank-oom-cascades-to-watchdog-timeout/fixtures/positive"
OOM_FIXTURE = OOM / "a100x16-4node-zero3-oom-rank11-two-nodes"
PORT = CASES / "master-port-in-use/fixtures/positive"
KB = load_kb([str(CASES)])


def _jobs_folder(root: Path) -> Path:
    jobs = root / "jobs"
    jobs.mkdir()
    for seed in (1, 2):
        gen.write_folder(jobs / f"generated-{seed}", size_mb=0.2, ranks=4, seed=seed)
    shutil.copytree(OOM_FIXTURE, jobs / "oom-fixture")
    shutil.copytree(next(p for p in sorted(PORT.iterdir()) if p.is_dir()), jobs / "port-fixture")
    with tarfile.open(jobs / "oom-archive.tar.gz", "w:gz") as tar:
        tar.add(OOM_FIXTURE, arcname=".")
    (jobs / "empty-job").mkdir()
    (jobs / "README.txt").write_text("not a job\n")
    return jobs


def _diagnose_cli(path: Path) -> dict[str, Any]:
    out = io.StringIO()
    with redirect_stdout(out):
        main(["diagnose", "--evidence", str(path), "--format", "json"])
    report: dict[str, Any] = json.loads(out.getvalue())
    return report


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    pytest.importorskip("ray", reason="extra `ray` (pip install 'distkb[ray]')")
    import ray

    from kb.batch.runner import run_batch

    jobs_dir = _jobs_folder(tmp_path_factory.mktemp("batch"))
    jobs, _ = find_jobs([str(jobs_dir)])
    try:
        result = run_batch(jobs, [str(CASES)], workers=2)
    finally:
        assert not ray.is_initialized(), "run_batch must shut down the Ray it started"
    return jobs_dir, result


def test_one_row_per_job_equal_to_kb_diagnose(batch: tuple[Path, Any]) -> None:
    jobs_dir, result = batch
    names = sorted(p.name for p in jobs_dir.iterdir() if p.name != "README.txt")
    assert [r["job"] for r in result.rows] == names
    for row in result.rows:
        expected = row_from_report(row["job"], _diagnose_cli(jobs_dir / row["job"]))
        assert row == expected, row["job"]
    by_job = {r["job"]: r for r in result.rows}
    assert by_job["oom-fixture"]["case_id"] == "rank-oom-cascades-to-watchdog-timeout"
    assert by_job["oom-fixture"]["culprit_rank"] == 11
    assert by_job["oom-archive.tar.gz"]["case_id"] == by_job["oom-fixture"]["case_id"]
    assert by_job["empty-job"]["verdict"] == "no-match"
    assert len(result.worker_peak_rss_kb) <= 2  # num_cpus=2: at most two worker processes


def test_rows_round_trip_through_jsonl_and_parquet(batch: tuple[Path, Any], tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    _, result = batch
    write_jsonl(result.rows, tmp_path / "r.jsonl")
    write_parquet(result.rows, tmp_path / "r.parquet")
    from_jsonl = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines()]
    from_parquet = pq.read_table(tmp_path / "r.parquet").to_pylist()
    assert from_jsonl == from_parquet == [{c: r[c] for c in COLUMNS} for r in result.rows]
    top = summary(result.rows)["top_causes"][0]
    assert top == {
        "case_id": "rank-oom-cascades-to-watchdog-timeout",
        "jobs": sum(r["case_id"] == top["case_id"] for r in result.rows),
    }


def test_skipped_entries_say_why(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "job").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "job")
    jobs, skipped = find_jobs([str(tmp_path), str(tmp_path / "missing")])
    assert [j.name for j in jobs] == ["job"]
    assert any("neither a job folder nor an archive" in s for s in skipped)
    assert any("a link, not followed" in s for s in skipped)
    assert any("no such folder" in s for s in skipped)


def test_a_remote_job_is_fetched_and_diagnosed_like_a_local_one() -> None:
    """fsspec's in-memory filesystem stands for object storage (in this process: no Ray)."""
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    for path in OOM_FIXTURE.rglob("*"):
        if path.is_file():
            fs.pipe(f"/fleet/jobs/oom/{path.relative_to(OOM_FIXTURE)}", path.read_bytes())
    fs.pipe("/fleet/jobs/stray.txt", b"x")
    jobs, skipped = find_jobs(["memory://fleet/jobs"])
    assert [j.name for j in jobs] == ["oom"] and jobs[0].remote
    assert skipped and "stray.txt" in skipped[0]
    remote = diagnose_job(jobs[0], KB)["row"]
    local = diagnose_job(JobRef(name="oom", location=str(OOM_FIXTURE)), KB)["row"]
    assert remote == local


def test_a_job_that_cannot_be_read_is_an_error_row_not_a_traceback() -> None:
    row = diagnose_job(JobRef(name="gone", location="memory://nowhere/gone", remote=True), KB)[
        "row"
    ]
    assert row["verdict"] == "error" and row["error"]


def test_batch_without_jobs_is_a_usage_error(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    assert main(["batch", str(tmp_path), "-o", str(tmp_path / "r.jsonl")]) == 2


def test_fetch_writes_nothing_outside_its_folder(tmp_path: Path) -> None:
    fsspec = pytest.importorskip("fsspec")
    from kb.batch.fetch import _safe_relative, fetch

    assert _safe_relative("/jobs/a/../../etc/passwd", "/jobs/a") is None
    assert _safe_relative("/jobs/a/logs/r0.log", "/jobs/a") == "logs/r0.log"
    fs = fsspec.filesystem("memory")
    fs.pipe("/jobs2/a/logs/r0.log", b"x\n")
    into = tmp_path / "into"
    into.mkdir()
    fetched = fetch("memory://jobs2/a", str(into))
    assert Path(fetched.path).resolve().is_relative_to(into.resolve())
    assert (Path(fetched.path) / "logs" / "r0.log").read_bytes() == b"x\n"


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the block ends


def test_an_address_where_nothing_listens_is_a_clear_error_not_a_hang(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ray's own client retries an absent GCS without end; kb batch asks the port first."""
    pytest.importorskip("ray", reason="extra `ray`")
    jobs = tmp_path / "jobs"
    shutil.copytree(OOM_FIXTURE, jobs / "oom")
    port = _closed_port()
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        out = tmp_path / "r.jsonl"
        assert main(["batch", str(jobs), "-o", str(out), "--address", address]) == 2
        err = capsys.readouterr().err
        assert f"nothing answers at 127.0.0.1:{port}" in err and "Traceback" not in err
        assert not out.exists()


def test_local_mode_starts_its_own_instance_even_beside_a_running_cluster(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`address="local"`: a cluster another program left on this machine is not joined
    (joining it with num_cpus is an error in Ray), and a failing start is reported."""
    from kb.batch import runner

    calls: list[dict[str, Any]] = []

    class FakeRay:
        def init(self, **kwargs: Any) -> None:
            calls.append(kwargs)
            raise ValueError(
                "When connecting to an existing cluster, num_cpus must not be provided."
            )

    with pytest.raises(runner.ClusterUnreachable, match="a local Ray instance: ValueError"):
        runner._connect(FakeRay(), None, 2)
    assert calls[0]["address"] == "local" and calls[0]["num_cpus"] == 2
