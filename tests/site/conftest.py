"""Fixtures of the site tests: strict builds of the real site into temporary folders.

Each build runs `python -m mkdocs build --strict` in a subprocess, exactly as a person or
CI would, with `KB_CASES` / `KB_SITE_CASES` choosing extra or replacement case folders.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from kbsite_build import built
from kbsite_cases import (
    HOSTILE,
    HOSTILE_FIXTURES,
    HOSTILE_ID,
    SAMPLE,
    SAMPLE_FIXTURES,
    SAMPLE_ID,
    write_case,
)


@pytest.fixture(scope="session")
def bundled_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site exactly as `mkdocs build --strict` makes it from the bundled cases."""
    return built(tmp_path_factory.mktemp("bundled") / "site")


@pytest.fixture(scope="session")
def extra_cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("extra-cases")
    write_case(root, SAMPLE_ID, SAMPLE, SAMPLE_FIXTURES)
    return root


@pytest.fixture(scope="session")
def extra_site(tmp_path_factory: pytest.TempPathFactory, extra_cases: Path) -> Path:
    """The bundled cases plus one more case folder, added through `KB_CASES` only."""
    return built(tmp_path_factory.mktemp("extra") / "site", KB_CASES=str(extra_cases))


@pytest.fixture(scope="session")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site built from a single case written to attack it."""
    root = tmp_path_factory.mktemp("hostile-cases")
    write_case(root, HOSTILE_ID, HOSTILE, HOSTILE_FIXTURES)
    return built(tmp_path_factory.mktemp("hostile") / "site", KB_SITE_CASES=str(root))
