"""The reading bar of `kb diagnose` (kb.evidence.progressbar): drawn on stderr at a terminal
for text reports, never for JSON, never when stderr is not a terminal, and cleared when the
read is done; a report is the same with or without it."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from kb.cli.main import main
from kb.evidence import progressbar

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "hang-at-eval-8gpu"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _diagnose(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tty: bool, *extra: str
) -> tuple[str, str]:
    err = _Terminal() if tty else io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setattr(progressbar, "LARGE", 0)  # the small example counts as large here
    main(["diagnose", "--no-pager", "--evidence", str(EXAMPLE), *extra])
    return capsys.readouterr().out, err.getvalue()


def test_bar_at_a_terminal_for_text(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, err = _diagnose(monkeypatch, capsys, True)
    assert "kb: reading:   0%" in err  # drawn at once: the input counts as large
    assert err.rstrip(" ").endswith("\r")  # cleared: the report follows on a clean line
    plain, plain_err = _diagnose(monkeypatch, capsys, False)
    assert "kb: reading" not in plain_err
    assert out == plain


def test_no_bar_for_json(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out, err = _diagnose(monkeypatch, capsys, True, "--format", "json")
    assert "kb: reading" not in err
    json.loads(out)


def test_small_input_waits_before_showing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stderr", _Terminal())
    with progressbar.shown(True), progressbar.reading(1000):
        assert progressbar._STATE.bar is not None
        assert progressbar._STATE.bar.delay == progressbar.DELAY
        progressbar.scanned(400)
        progressbar.file_done(1000)
        assert progressbar._STATE.bar.n == 1000
    assert progressbar._STATE.bar is None
    with progressbar.reading(1000):  # outside `shown`: nothing
        assert progressbar._STATE.bar is None


@pytest.mark.parametrize(("fmt", "bar"), [("text", True), ("json", False)])
def test_kb_evidence_bar_only_for_text(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fmt: str, bar: bool
) -> None:
    err = _Terminal()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setattr(progressbar, "LARGE", 0)
    main(["evidence", "--format", fmt, str(EXAMPLE)])
    assert ("kb: reading" in err.getvalue()) is bar
    assert capsys.readouterr().out
