"""`kb test`: per-fixture report, the summary line, exit codes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from remote_error_pack import ERROR, remote_error_case

from kb.cli.main import main

CASE = remote_error_case("cli-test-remote-error")


def make_pack(root: Path, negative_text: str = "{'loss': 2.31, 'epoch': 0.1}\n") -> Path:
    folder = root / "cli-test-remote-error"
    for rel, text in (
        ("positive/two-ranks", ERROR),
        ("negative/healthy", negative_text),
        ("positive/known-gap", "core dumped\n"),
    ):
        (folder / "fixtures" / rel).mkdir(parents=True)
        (folder / "fixtures" / rel / "rank1.log").write_text(text, encoding="utf-8")
    (folder / "case.kb").write_text(CASE, encoding="utf-8")
    return root


def test_all_pass_with_known_gap(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = make_pack(tmp_path)
    assert main(["test", "--no-bundled", "--cases", str(pack)]) == 0
    out = capsys.readouterr().out
    assert "2 passed, 0 failed, 1 known gap" in out.splitlines()
    assert re.search(
        r"PASS +positive/two-ranks\n +expected: match\n +matched: +"
        r"cli-test-remote-error 1\.00\n +culprit: +rank 1\n"
        r" +evidence: rank1\.log:1 \(remote_error\)",
        out,
    )
    assert re.search(r"KNOWN GAP positive/known-gap\n.*\n +known gap: the error is only", out)


def test_failure_exits_1_and_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = make_pack(tmp_path, negative_text=ERROR)
    assert main(["test", "--no-bundled", "--cases", str(pack), "cli-test-remote-error"]) == 1
    out = capsys.readouterr().out
    assert "1 passed, 1 failed, 1 known gap" in out.splitlines()
    assert re.search(r"FAIL +negative/healthy\n +expected: no match\n", out)
    assert (
        "problem:  expected no match, but cli-test-remote-error matched (score 1.00) on "
        "remote_error at rank1.log:1" in out
    )


def test_unknown_id_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["test", "--no-bundled", "--cases", str(make_pack(tmp_path)), "no-such"]) == 2
    assert "unknown case id(s): no-such" in capsys.readouterr().err


def test_kb_cases_env_is_honoured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("KB_CASES", str(make_pack(tmp_path)))
    assert main(["test", "cli-test-remote-error"]) == 0
    assert "2 passed, 0 failed, 1 known gap" in capsys.readouterr().out.splitlines()


BUNDLED = [
    "accelerate-version-collective-mismatch",
    "collective-mismatch-across-ranks",
    "eval-save-collective-deadlock",
    "nccl-p2p-consumer-gpu-hang",
]


def test_bundled_cases_pass() -> None:
    assert main(["test", *BUNDLED]) == 0
