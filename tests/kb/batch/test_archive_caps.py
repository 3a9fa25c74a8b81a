"""An archive of very many members (issue 32): only the first `MAX_MEMBERS` entries are
looked at, the report says the cap was reached, and `kb batch`'s row carries the note."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

import pytest

from dsl.api import DEFAULT_CASES
from kb.batch.jobs import JobRef
from kb.batch.task import diagnose_job, load_kb
from kb.evidence import archives
from kb.evidence.reader import read_evidence

CAP = 50
MEMBERS = 120


def _line(i: int) -> bytes:
    return f"[rank{i % 8}] step {i} ok\n".encode()


def _tar(path: Path) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for i in range(MEMBERS):
            info = tarfile.TarInfo(f"logs/m{i:04d}.log")
            info.size = len(_line(i))
            tar.addfile(info, io.BytesIO(_line(i)))
    return path


def _zip(path: Path) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for i in range(MEMBERS):
            zf.writestr(f"logs/m{i:04d}.log", _line(i))
    return path


@pytest.fixture
def small_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archives, "MAX_MEMBERS", CAP)


@pytest.mark.parametrize("make", [_tar, _zip], ids=["tar.gz", "zip"])
def test_an_archive_past_the_member_cap_is_read_up_to_it_with_a_note(
    tmp_path: Path, small_cap: None, make: object
) -> None:
    archive = make(tmp_path / ("job.tar.gz" if make is _tar else "job.zip"))  # type: ignore[operator]
    facts = read_evidence(archive).facts
    assert len(facts.files) == CAP
    notes = [s for s in facts.skipped if "member cap reached" in s.reason]
    assert len(notes) == 1 and f"first {CAP:,} entries" in notes[0].reason


def test_an_archive_within_the_cap_has_no_note(tmp_path: Path) -> None:
    facts = read_evidence(_tar(tmp_path / "job.tar.gz")).facts
    assert len(facts.files) == MEMBERS
    assert not any("member cap" in s.reason for s in facts.skipped)


def test_the_batch_row_says_the_cap_was_reached(tmp_path: Path, small_cap: None) -> None:
    archive = _tar(tmp_path / "job.tar.gz")
    kb = load_kb([str(DEFAULT_CASES)])
    row = diagnose_job(JobRef(name="job.tar.gz", location=str(archive)), kb)["row"]
    assert row["verdict"] != "error" and row["files"] == CAP
    assert "member cap reached" in row["note"] and "rest of the archive not read" in row["note"]
