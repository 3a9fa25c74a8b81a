"""`kb preflight` when no case could be checked on this machine: it says so plainly, names what
was missing, and its exit status is not the all-clear 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.cli.main import main
from kb.cli.preflight import EXIT_CLEAN, EXIT_NOTHING_CHECKED, EXIT_WARNING
from kb.collect import preflight as preflight_module
from kb.collect.preflight import Machine, PreflightReport, Warning_
from kb.collect.preflight_report import render_text

NOTHING = PreflightReport(
    checked=0,
    skipped=40,
    machine=Machine(interfaces=["lo", "eth0"]),
    missing_tools=["conda list", "nvidia-smi", "nvidia-smi -q", "npu-smi info", "ibv_devinfo"],
)


def _clean(checked: int) -> PreflightReport:
    return PreflightReport(checked=checked, skipped=0, machine=Machine(platforms={"cuda"}))


def test_nothing_checked_is_not_reported_as_all_clear() -> None:
    text = render_text(NOTHING)
    assert "No known-bad combination found" not in text
    assert "Nothing was checked" in text
    assert "not an all-clear" in text


def test_nothing_checked_names_what_was_missing() -> None:
    text = render_text(NOTHING)
    assert "no GPU or NPU found" in text
    assert "nvidia-smi, npu-smi info" in text  # the device tools that were not found
    assert "all 40 cases" in text


def test_a_clean_machine_still_reads_as_clean() -> None:
    text = render_text(_clean(25))
    assert "No known-bad combination found" in text and "Nothing was checked" not in text


def _run(report: PreflightReport, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
         *extra: str) -> int:  # fmt: skip
    monkeypatch.setattr(preflight_module, "preflight", lambda kb, env, python=None: report)
    empty = tmp_path / "no-cases"
    empty.mkdir(exist_ok=True)
    return main(["preflight", "--no-bundled", "--cases", str(empty), *extra])


def test_exit_status_when_nothing_was_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert EXIT_NOTHING_CHECKED not in (EXIT_CLEAN, EXIT_WARNING, 2)
    assert _run(NOTHING, tmp_path, monkeypatch) == EXIT_NOTHING_CHECKED
    assert "Nothing was checked" in capsys.readouterr().out
    assert _run(NOTHING, tmp_path, monkeypatch, "--format", "json") == EXIT_NOTHING_CHECKED
    assert json.loads(capsys.readouterr().out)["checked"] == 0
    assert _run(_clean(25), tmp_path, monkeypatch) == EXIT_CLEAN


def test_a_warning_outranks_nothing_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = PreflightReport(checked=0, skipped=40,
                             warnings=[Warning_(case="nccl-socket-wrong-interface", title="t")])  # fmt: skip
    assert _run(report, tmp_path, monkeypatch) == EXIT_WARNING


def test_help_documents_the_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["preflight", "--help"])
    out = capsys.readouterr().out
    assert f"{EXIT_NOTHING_CHECKED}  nothing could be checked" in " ".join(out.split("\n"))
