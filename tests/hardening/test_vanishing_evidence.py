"""Issue 29: evidence removed between the existence check and the read (a job's cleanup, a
second user's `rm -r`) is said as a skipped file, never a `FileNotFoundError` traceback out
of `kb evidence` or `kb diagnose`. Each window is opened on purpose by removing the evidence
at the step that follows it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import kb.evidence.reader as reader
from kb.cli.main import main
from kb.evidence import inputs

COMMANDS = [["evidence"], ["diagnose", "-e"]]


def _evidence(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    (folder / "sub").mkdir(parents=True)
    (folder / "rank0.log").write_text("NCCL WARN Call to ibv_reg_mr failed\n", encoding="utf-8")
    (folder / "sub" / "rank1.log").write_text("step 5 loss 2.1\n", encoding="utf-8")
    return folder


def _remove(path: Path) -> None:
    shutil.rmtree(path) if path.is_dir() else path.unlink()


def _run(command: list[str], path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    status = main([*command, str(path)])
    out = capsys.readouterr()
    assert status in (0, 1), out.err[-800:]
    return out.out + out.err


def _walk_then(
    monkeypatch: pytest.MonkeyPatch, before: Callable[[], None], after: Callable[[], None]
) -> None:
    """The reader's walk, with `before` run ahead of it and `after` once it listed the files."""
    walk = reader.walk

    def walk_and_remove(root: Any, skipped: Any) -> Iterator[Any]:
        before()
        tasks = list(walk(root, skipped))
        after()
        return iter(tasks)

    monkeypatch.setattr(reader, "walk", walk_and_remove)


@pytest.mark.parametrize("removed_after_walk", [False, True], ids=["before-walk", "after-walk"])
@pytest.mark.parametrize("command", COMMANDS)
def test_a_folder_removed_before_or_after_the_walk_is_said(
    command: list[str],
    removed_after_walk: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Removed after the existence check but before the walk, or once the walk listed its
    files: each is said as unreadable, never a traceback."""
    folder = _evidence(tmp_path)
    remove, keep = (lambda: _remove(folder)), (lambda: None)
    _walk_then(monkeypatch, *((keep, remove) if removed_after_walk else (remove, keep)))
    assert "No such file or directory" in _run(command, folder, capsys)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_folder_removed_while_the_walk_starts_is_said(
    command: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Between the walk's 'is it a folder' and its first look inside (the narrowest window:
    the traceback the issue saw)."""
    folder = _evidence(tmp_path)
    realpath = os.path.realpath

    def realpath_then_remove(path: Any, *args: Any, **kwargs: Any) -> Any:
        real = realpath(path, *args, **kwargs)
        if real == realpath(folder) and folder.exists():
            _remove(folder)
        return real

    monkeypatch.setattr(inputs.os.path, "realpath", realpath_then_remove)
    assert "run: unreadable: No such file or directory" in _run(command, folder, capsys)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_single_file_removed_after_the_existence_check_is_said(
    command: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = _evidence(tmp_path) / "rank0.log"
    _walk_then(monkeypatch, lambda: None, lambda: _remove(log))
    assert "rank0.log: unreadable: No such file or directory" in _run(command, log, capsys)
