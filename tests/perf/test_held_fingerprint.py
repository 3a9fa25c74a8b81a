"""`held_fingerprint`: one `kb diagnose` walks the catalogue's files once, not once per line
the reader weighs (issue 27); outside the block an edited catalogue is seen at once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dsl.catalogue import load


@pytest.fixture()
def extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A catalogue folder of one file, added through KB_CATALOGUE."""
    folder = tmp_path / "catalogue"
    folder.mkdir()
    (folder / "extra.kb").write_text("# nothing declared yet\n", encoding="utf-8")
    monkeypatch.setenv("KB_CATALOGUE", str(folder))
    return folder


def _edit(folder: Path, text: str) -> None:
    path = folder / "extra.kb"
    path.write_text(text, encoding="utf-8")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))  # unmistakably newer


def test_an_edit_is_seen_outside_the_block(extra: Path) -> None:
    before = load.default_fingerprint()
    _edit(extra, "# a comment that changes the bytes\n")
    assert load.default_fingerprint() != before


def test_inside_the_block_the_files_are_walked_once(
    extra: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    walks: list[list[Path]] = []
    real = load._stat_signature

    def counted(roots: list[Path]) -> tuple[tuple[object, ...], ...]:
        walks.append(roots)
        return real(roots)

    monkeypatch.setattr(load, "_stat_signature", counted)
    with load.held_fingerprint() as held:
        _edit(extra, "# edited while a run holds the fingerprint\n")
        got = {load.default_fingerprint() for _ in range(20)}
    assert got == {held}
    assert len(walks) == 1
    assert load.default_fingerprint() != held  # released: the edit is seen
    assert len(walks) == 2


def test_blocks_nest_and_release_on_error(extra: Path) -> None:
    with pytest.raises(RuntimeError), load.held_fingerprint() as outer:
        with load.held_fingerprint() as inner:
            assert inner == outer
        assert load._held == outer
        raise RuntimeError("the command failed")
    assert load._held is None


def test_a_later_process_takes_the_stored_fingerprint_until_a_file_changes(
    extra: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27: hashing the catalogue was ~15 ms of every warm `kb diagnose`; its value is
    kept for the files' stat signature (`dsl.catalogue.remembered`)."""
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    path = extra / "extra.kb"

    def settle() -> None:  # written long enough ago not to be racily clean
        st = path.stat()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - 10_000_000_000))

    settle()
    hashed: list[int] = []
    real = load.fingerprint
    monkeypatch.setattr(load, "fingerprint", lambda files: hashed.append(1) or real(files))
    monkeypatch.setattr(load, "_last_fingerprint", None)
    first = load.default_fingerprint()
    monkeypatch.setattr(load, "_last_fingerprint", None)  # as a new process starts
    assert load.default_fingerprint() == first
    assert len(hashed) == 1
    path.write_text("# changed\n", encoding="utf-8")
    settle()
    monkeypatch.setattr(load, "_last_fingerprint", None)
    changed = load.default_fingerprint()
    assert changed != first and len(hashed) == 2
    assert changed == real(load.catalogue_files(load.default_roots()))
