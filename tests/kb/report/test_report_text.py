"""The text report, as a new user first sees it (issue 28, item 3): each test is one defect
a fresh-clone trial found, and fails on the report as it was."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from reportkit import (
    LIKELY,
    MISMATCH,
    copy_fixture,
    diagnose,
    first_screen,
    likely_folder,
    notes_only_folder,
    oom_tail_folder,
    socket_folder,
)

pytestmark = pytest.mark.usefixtures("wide_terminal")


@pytest.fixture
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("NO_COLOR", "1")


def test_first_screen_holds_answer_level_first_fix_and_next_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    screen = first_screen(diagnose(capsys, socket_folder(tmp_path)))
    text = "\n".join(screen)
    assert screen[0].startswith("Most likely: nccl-socket-wrong-interface (confirmed")
    assert any(line.startswith("  why: ") for line in screen)
    assert "Fix first: Pin NCCL and Gloo to the interface the nodes share" in text
    assert "export NCCL_SOCKET_IFNAME=eth0" in text, "the fix's own command is on screen"
    assert any(line.startswith("Next: $ ") for line in screen)
    head = screen[: next(i for i, line in enumerate(screen) if line.startswith("─"))]
    assert all(len(line) <= 100 for line in head if "ranked above" not in line)


def test_likely_is_said_with_what_would_confirm_it_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = likely_folder(tmp_path)
    screen = first_screen(diagnose(capsys, folder))
    assert screen[0].startswith("Most likely: docker-shm-too-small-nccl (likely, not yet proven")
    nxt = next(line for line in screen if line.startswith("Next: "))
    case_text = (LIKELY.parents[2] / "case.kb").read_text(encoding="utf-8")
    assert nxt.removeprefix("Next: $ ") in case_text, "the case's own collect command"
    why = screen[screen.index(nxt) + 1]
    assert why.strip().startswith("to see whether"), "it says what the command would show"


def test_no_condition_language_on_screen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`condition:` blocks of raw expressions (`rank_sigkill and not cuda_oom`) are gone; the
    condition is said in the queries' own words."""
    out = diagnose(capsys, oom_tail_folder(tmp_path))
    assert "condition:" not in out
    assert "rank_sigkill and not cuda_oom" not in out
    assert re.search(r"needs: \w.*\(not seen\)", out)


def test_likely_never_beside_a_cross_mark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = diagnose(capsys, oom_tail_folder(tmp_path))
    assert "✘" not in out and "✔" not in out
    assert "(not seen)" in out


def test_unseen_kernel_log_is_not_a_sign_against(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No kernel log was handed over, so zero OOM-kill lines speak neither way: the kernel
    log is something to collect, not a reason against."""
    out = diagnose(capsys, oom_tail_folder(tmp_path))
    assert "speaks against" not in out
    assert "0 matching line(s)" not in out
    collect = out.split("to confirm it, collect:", 1)[1]
    assert "sudo dmesg -T" in collect


def test_no_internal_scores_beside_a_level(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = diagnose(capsys, oom_tail_folder(tmp_path))
    assert not re.search(r"(likely|possible|confirmed)\s+score \d", out)
    assert "score 0.00" not in out


def test_notes_questions_are_not_under_collect(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A query over the user's own notes cannot be collected with a command."""
    out = diagnose(capsys, oom_tail_folder(tmp_path))
    collect = out.split("to confirm it, collect:", 1)[1].split("fixes:", 1)[0]
    assert "the user says GPU memory was not the problem" not in collect
    assert "the user talks about host RAM" not in collect


def test_cuda_run_gets_no_ascend_step(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = copy_fixture(MISMATCH, tmp_path / "mismatch")
    for out in (diagnose(capsys, folder), diagnose(capsys, folder, "-v")):
        assert "TORCH_DISTRIBUTED_DEBUG=DETAIL" in out
        assert "HCCL_ENTRY_LOG_ENABLE" not in out


def test_a_fix_the_notes_say_was_tried_is_not_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = socket_folder(tmp_path)
    (folder / "notes.txt").write_text(
        "We already set NCCL_SOCKET_IFNAME=eth0 and GLOO_SOCKET_IFNAME=eth0 on every node, "
        "same error.\n",
        encoding="utf-8",
    )
    out = diagnose(capsys, folder)
    screen = "\n".join(first_screen(out))
    assert "export NCCL_SOCKET_IFNAME=eth0" not in screen
    assert (
        "Set NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME on every node  (your notes say this "
        "was tried: notes.txt:1)" in out
    )


def test_no_rank_minus_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = diagnose(capsys, notes_only_folder(tmp_path))
    assert "rank -1" not in out and "rank ?" not in out
    from kb.report.model import rank_label

    assert rank_label(-1) == rank_label(None) == rank_label("unknown") == "no rank"


def test_nothing_is_said_twice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The process failure (once more as `rank ?`), the last-progress lines and the devices
    were each printed by the report and again by the summary below it."""
    out = diagnose(capsys, oom_tail_folder(tmp_path))
    assert out.count("local_rank: 0 (pid: 2410412)") == 1
    assert "Process failures" not in out
    notes = diagnose(capsys, notes_only_folder(tmp_path))
    assert notes.count("Training on 8 GPUs with torchrun hangs at evaluation") <= 1
    assert "Last progress per rank" not in notes


def _save_hang_issue(tmp_path: Path) -> Path:
    """An issue text that names the GPUs and a hang at a checkpoint save, nothing else."""
    folder = tmp_path / "save"
    folder.mkdir()
    (folder / "issue.md").write_text(
        "Multi GPU timeout on save checkpoint; 4x A100, it hangs forever at the checkpoint step\n",
        encoding="utf-8",
    )
    return folder


def test_one_notes_line_is_shown_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = diagnose(capsys, _save_hang_issue(tmp_path))
    first = out.split("\n2. ", 1)[0].split("\n1. ", 1)[1]
    assert first.count("issue.md:1 (no rank)") == 1


def test_file_counts_read_as_english(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = diagnose(capsys, notes_only_folder(tmp_path))
    assert "(1 lines)" not in out
    assert re.search(r"What was read in \S+: 1 file \(", out)


def test_a_device_named_in_the_notes_is_not_shown_as_read_from_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = diagnose(capsys, _save_hang_issue(tmp_path))
    assert "Devices:" not in out
    assert not re.search(r"A100.*\(issue\.md:1\)", out)


def test_an_empty_folder_is_called_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    out = diagnose(capsys, empty)
    assert out.startswith("This folder is empty")
    assert "No known case matches" not in out
    assert "kb collect" in "\n".join(first_screen(out))


def test_verbose_keeps_every_clause_and_the_full_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = oom_tail_folder(tmp_path)
    short = diagnose(capsys, folder)
    full = diagnose(capsys, folder, "-v")
    assert "more likely with:" in full and "more likely with:" not in short
    assert "Files (1):" in full


def test_in_colour_no_line_of_the_first_screen_is_wider_than_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A clipped line used to lose its colour reset and count it as text, so on a real
    terminal it spilled onto the next row ('… that w' / 'oul…')."""
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    out = diagnose(capsys, oom_tail_folder(tmp_path))
    assert "\x1b[" in out, "the report is in colour"
    lines = out.splitlines()
    plain = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in lines]
    rule = next(i for i, line in enumerate(plain) if line.startswith("─"))
    head, visible = lines[:rule], plain[:rule]
    assert all(len(line) <= 100 for line in visible), [v for v in visible if len(v) > 100]
    assert all(line.count("\x1b[") % 2 == 0 for line in head), "every colour is ended"
