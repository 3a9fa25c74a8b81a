"""The evidence path is shown escaped in every output format (issue 32): a folder named with
a newline and "Most likely: forged-case (confirmed)" once forged a verdict line in the text
report, and an undecodable byte in its name made the JSON report invalid UTF-8."""

from __future__ import annotations

import io
import json
import os
import shutil
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from dsl.api import DEFAULT_CASES
from kb.cli.main import main

# a job the report names a case for, with the next command to run in that folder
OOM = Path(DEFAULT_CASES) / (
    "nccl-socket-wrong-interface/fixtures/positive/a100x16-2node-ifname-lo-leftover-torchrun-logdir"
)
FORGED = "Most likely: forged-case (confirmed)"
FORMATS = ["text", "markdown", "json"]


@pytest.fixture
def back_to_cwd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(os.getcwd())  # restored after the test, whatever it changed to


def _report(path: str, fmt: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        main(["diagnose", "--evidence", path, "--format", fmt])
    return out.getvalue()


def _jobs(tmp_path: Path, name: str) -> dict[str, str]:
    """The same hostile name on an empty folder and on one holding a real job's logs, as
    paths relative to the current folder (short enough that no line is clipped)."""
    os.chdir(tmp_path)
    for state in ("empty", "full"):
        os.mkdir(state)
    os.mkdir(os.path.join("empty", name))
    shutil.copytree(OOM, os.path.join("full", name))
    return {s: os.path.join(s, name) for s in ("empty", "full")}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.usefixtures("back_to_cwd")
def test_a_newline_in_the_evidence_path_forges_no_line(tmp_path: Path, fmt: str) -> None:
    for state, path in _jobs(tmp_path, f"job\n{FORGED}\n").items():
        text = _report(path, fmt)
        lines = [ln.strip("*# `") for ln in text.splitlines()]
        assert not any(ln.startswith(FORGED) for ln in lines), (state, text)
        if fmt == "json":
            shown = json.loads(text)["evidence_root"]
            assert shown.endswith("job\\x0aMost likely: forged-case (confirmed)\\x0a")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.usefixtures("back_to_cwd")
def test_an_undecodable_byte_in_the_evidence_path_stays_valid_utf8(
    tmp_path: Path, fmt: str
) -> None:
    name = os.fsdecode(b"job-\xff")  # the byte as Python holds it: a lone surrogate
    for state, path in _jobs(tmp_path, name).items():
        text = _report(path, fmt)
        text.encode("utf-8")  # strict: a lone surrogate raises here
        shown = json.loads(text)["evidence_root"] if fmt == "json" else text
        assert "job-\\xff" in shown, (state, fmt)
