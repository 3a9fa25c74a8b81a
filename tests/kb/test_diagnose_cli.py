"""`kb diagnose`: the JSON contract, the exit codes, and the three output formats."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from kb.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "hang-at-eval-8gpu"
HEALTHY = (
    ROOT
    / "cases"
    / "collective-mismatch-across-ranks"
    / "fixtures"
    / "negative"
    / "healthy-run-with-distributed-debug-detail"
)


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_json_contract_on_the_example(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["diagnose", "--evidence", str(EXAMPLE), "--format", "json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["schema"] == "kb.diagnosis/v1"
    assert data["evidence"]["files"] and data["evidence"]["ranks"] == list(range(8))
    best = data["matches"][0]
    assert best["id"] == "eval-save-collective-deadlock"
    assert 0 < best["score"] <= 1
    assert best["culprit_rank"] == 0
    for key in ("id", "title", "score", "evidence", "missing", "remedies"):
        assert key in best
    line = next(e for e in best["evidence"] if e["query"] == "main_only_collective")
    assert set(line) >= {"query", "file", "line", "rank", "text"}
    assert line["file"] == "train.py" and "get_state_dict" in line["text"]
    assert best["remedies"][0]["steps"][0]["commands"]
    scores = [m["score"] for m in data["matches"]]
    assert data["matches"][1]["id"] == "collective-mismatch-across-ranks"
    assert scores[0] >= scores[1]


def test_no_match_exit_1_and_next_steps(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["diagnose", "--evidence", str(HEALTHY), "--format", "json"], capsys)
    assert code == 1
    data = json.loads(out)
    assert data["matches"] == []
    assert data["next_steps"], "a no-match must say what to collect next"
    assert any("NCCL_DEBUG=INFO" in c for s in data["next_steps"] for c in s["commands"])


def test_no_match_text_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["diagnose", "--evidence", str(HEALTHY)], capsys)
    assert code == 1
    assert "No known case matches this evidence." in out
    assert "What to collect next:" in out


def test_missing_path_is_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(["diagnose", "--evidence", str(tmp_path / "nope")], capsys)
    assert code == 2
    assert "no such file or folder" in err


def test_unknown_case_is_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["diagnose", "--evidence", str(EXAMPLE), "--case", "no-such"], capsys)
    assert code == 2 and "no case `no-such`" in err


def test_single_case_filter(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        [
            "diagnose",
            "--evidence",
            str(EXAMPLE),
            "--format",
            "json",
            "--case",
            "collective-mismatch-across-ranks",
        ],
        capsys,
    )
    assert code == 0
    assert [m["id"] for m in json.loads(out)["matches"]] == ["collective-mismatch-across-ranks"]


def test_markdown_is_pasteable(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["diagnose", "--evidence", str(EXAMPLE), "--format", "markdown"], capsys)
    assert code == 0
    assert out.startswith("## kb diagnose")
    assert "### 1. " in out and "`eval-save-collective-deadlock`" in out
    assert "| query | where | rank | line |" in out
    assert "\x1b[" not in out


def test_text_has_no_colour_when_piped(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "kb.cli.main", "diagnose", "--evidence", str(EXAMPLE)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert "\x1b[" not in proc.stdout
    assert "1. eval-save-collective-deadlock" in proc.stdout
    assert "culprit rank: 0" in proc.stdout


def test_colour_can_be_forced_and_no_color_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.report.text import use_colour

    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_colour(Tty())  # type: ignore[arg-type]
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_colour(Tty())  # type: ignore[arg-type]


def test_archive_and_stdin_inputs(tmp_path: Path) -> None:
    archive = tmp_path / "logs.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(EXAMPLE, arcname="hang")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kb.cli.main",
            "diagnose",
            "--evidence",
            str(archive),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["matches"][0]["id"] == "eval-save-collective-deadlock"
    log = (EXAMPLE / "logs" / "train.log").read_bytes()
    proc = subprocess.run(
        [sys.executable, "-m", "kb.cli.main", "diagnose", "--evidence", "-", "--format", "json"],
        input=log,
        capture_output=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode in (0, 1), proc.stderr
    data = json.loads(proc.stdout)
    assert data["schema"] == "kb.diagnosis/v1"
