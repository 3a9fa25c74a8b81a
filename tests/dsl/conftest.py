"""Shared helpers: a real case file laid out as a case folder, and `kb` run in-process."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kb.cli.main import main

SAMPLE = Path(__file__).parent / "data" / "nccl-p2p.kb"
CASE_ID = "nccl-p2p-consumer-gpu-hang"


@pytest.fixture
def sample_text() -> str:
    return SAMPLE.read_text(encoding="utf-8")


@pytest.fixture
def case_folder(tmp_path: Path) -> Callable[[str], Path]:
    """Write `text` as <tmp>/cases/<id>/case.kb with its fixture folders; return the file."""

    def write(text: str) -> Path:
        folder = tmp_path / "cases" / CASE_ID
        (folder / "fixtures" / "positive" / "two-ranks").mkdir(parents=True, exist_ok=True)
        path = folder / "case.kb"
        path.write_text(text, encoding="utf-8")
        return path

    return write


@pytest.fixture
def kb(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., tuple[int, str, str]]:
    """Run `kb ARGS` in-process: (exit code, stdout, stderr); argparse exits are caught."""
    monkeypatch.delenv("KB_CASES", raising=False)

    def run(*args: str) -> tuple[int, str, str]:
        try:
            code = main(list(args))
        except SystemExit as exc:
            code = int(exc.code or 0)
        out, err = capsys.readouterr()
        return code, out, err

    return run
