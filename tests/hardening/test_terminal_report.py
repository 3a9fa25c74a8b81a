"""Issue 29: the terminal report carries no live control from evidence. A conceal sequence
(`ESC [8m`) hid the rest of the report; U+202E (right-to-left override) reordered a line."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.cli.main import main
from kb.evidence.facts import EvidenceLine
from kb.report.terminal import evidence_for_terminal, safe_for_terminal
from kb.report.text import Style, _evidence_line

CONCEAL, RLO = "\x1b[8m", "\u202e"
LOG = (
    f"torch.distributed.DistBackendError: NCCL error in: {CONCEAL}hidden {RLO}gnp.exe \x9b31m\n"
    "[rank0]:[E ProcessGroupNCCL.cpp:1182] [Rank 0] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 600000 milliseconds before "
    "timing out.\n"
)
LIVE = ("\x1b", RLO, "\x9b", "\u2066", "\x07")


def _report(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    folder = tmp_path / f"ev{RLO}dir"
    folder.mkdir()
    (folder / "rank0.log").write_text(LOG, encoding="utf-8")
    (folder / "notes.txt").write_text(f"it hangs {CONCEAL}secret {RLO}\u2066x\x07\n")
    capsys.readouterr()
    assert main(["diagnose", "--evidence", str(folder), "--no-pager", *extra]) in (0, 1)
    return capsys.readouterr().out


@pytest.mark.parametrize("extra", [(), ("-v",)])
def test_the_report_of_a_hostile_log_has_no_live_control(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    extra: tuple[str, ...],
) -> None:  # fmt: skip
    monkeypatch.setenv("NO_COLOR", "1")
    out = _report(tmp_path, capsys, *extra)
    assert "gnp.exe" in out  # the line is shown ...
    assert not [c for c in LIVE if c in out]  # ... with nothing of it live
    assert "\\u202e" in out  # the override is shown, visibly


def test_in_colour_only_the_reports_own_colours_are_live(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")
    out = _report(tmp_path, capsys, "-v")
    assert "\x1b[1m" in out  # the report's own bold
    assert CONCEAL not in out and RLO not in out and "\x9b" not in out


def test_an_evidence_line_that_reached_the_renderer_raw_is_escaped() -> None:
    """Whatever the reader did, the renderer escapes: `ESC [8m` in a line (or its path) is
    shown as text, not obeyed."""
    line = EvidenceLine(file=f"logs/{RLO}gol.txt", line=3, rank=0, text=f"a {CONCEAL}b\x1b]0;t\x07")
    rendered = "\n".join(_evidence_line(line, Style(True), "  "))
    assert CONCEAL not in rendered and "\x1b]" not in rendered and RLO not in rendered
    assert "\\x1b[8m" in rendered and "\\u202e" in rendered


@pytest.mark.parametrize("seq", [CONCEAL, "\x1b[38;5;0m", "\x1b[?25l", "\x1b]8;;http://x\x1b\\"])
def test_the_last_layer_keeps_only_the_reports_own_colours(seq: str) -> None:
    assert "\x1b" not in safe_for_terminal(f"x{seq}y")
    assert safe_for_terminal("\x1b[1mA\x1b[0m") == "\x1b[1mA\x1b[0m"


def test_the_escape_is_visible_and_keeps_plain_text() -> None:
    assert evidence_for_terminal("plain\ttext é 漢") == "plain\ttext é 漢"
    assert evidence_for_terminal(f"{RLO}\u2069\r\n") == "\\u202e\\u2069\\x0d\\x0a"
