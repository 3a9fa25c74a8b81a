"""A toy catalogue installed for one test: the lint and ladder tests give cases messages of a
known role and causes without depending on what the bundled catalogue says."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dsl.catalogue import registry
from dsl.catalogue.load import load_catalogue


@contextmanager
def installed(tmp_path: Path, text: str) -> Iterator[None]:
    """Cases are lowered against the catalogue `text` (written under `tmp_path`) in the block."""
    folder = tmp_path / "catalogue"
    folder.mkdir()
    (folder / "toy.kb").write_text(text, encoding="utf-8")
    loaded = load_catalogue([folder], with_env=False)
    assert loaded.diagnostics == []
    with registry.use(loaded.catalogue):
        yield
