"""The never-silent report's second look: catalogued messages in lines no reader flagged."""

from __future__ import annotations

import os
from pathlib import Path

from kb.evidence.facts import EvidenceFile
from kb.evidence.unflagged import MAX_FILE_BYTES, unflagged_messages

EFA = (
    "Libfabric EFA provider has encountered an internal error:\n\n"
    "Libfabric error: (-12) Cannot allocate memory\n"
    "EFA internal error: (4112) Failure to post internal receive buffers\n\n"
    "Your application will now abort().\n"
)


def _file(root: Path, name: str, text: str, kind: str = "text-log") -> EvidenceFile:
    (root / name).write_text(text, encoding="utf-8")
    return EvidenceFile(path=name, kind=kind, size=len(text.encode()))


def test_a_message_in_a_shape_no_reader_flags_is_found(tmp_path: Path) -> None:
    f = _file(tmp_path, "error.txt", EFA)
    found = unflagged_messages(tmp_path, [f], set())
    assert [(x.file, x.line) for x in found] == [("error.txt", 1), ("error.txt", 4)]
    assert found[1].text.startswith("EFA internal error: (4112)")


def test_lines_already_kept_and_prose_are_not_read_again(tmp_path: Path) -> None:
    f = _file(tmp_path, "error.txt", EFA)
    assert [x.line for x in unflagged_messages(tmp_path, [f], {("error.txt", 1)})] == [4]
    notes = _file(tmp_path, "notes.md", EFA, kind="notes")
    assert unflagged_messages(tmp_path, [notes], set()) == []
    quoting = _file(
        tmp_path,
        "ask.txt",
        "Every run stops and then it says EFA internal error: (4112) Failure to post internal receive buffers\n",
    )
    assert unflagged_messages(tmp_path, [quoting], set()) == []


def test_it_stays_inside_the_root_and_within_its_bounds(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.log").write_text(EFA, encoding="utf-8")
    root = tmp_path / "evidence"
    root.mkdir()
    os.symlink(outside / "secret.log", root / "link.log")
    linked = EvidenceFile(path="link.log", kind="text-log", size=len(EFA))
    escaping = EvidenceFile(path="../outside/secret.log", kind="text-log", size=len(EFA))
    assert unflagged_messages(root, [linked, escaping], set()) == []
    big = _file(root, "big.log", EFA + "x" * MAX_FILE_BYTES)
    member = EvidenceFile(path="logs.tar.gz!/error.txt", kind="text-log", size=len(EFA))
    assert unflagged_messages(root, [big, member], set()) == []
    assert unflagged_messages(root / "nothing-here.txt", [], set()) == []
