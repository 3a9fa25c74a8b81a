"""Helpers to build evidence folders in tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content, encoding="utf-8")
    return root


@pytest.fixture
def tree(tmp_path: Path):  # type: ignore[no-untyped-def]
    def make(files: dict[str, str | bytes], folder: str = "ev") -> Path:
        return write_tree(tmp_path / folder, files)

    return make
