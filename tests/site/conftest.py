"""Fixtures of the site tests: strict builds of the real site into temporary folders.

Each build runs `python -m mkdocs build --strict` in a subprocess, exactly as a person or
CI would, with `KB_CASES` / `KB_SITE_CASES` choosing extra or replacement case folders.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from kbsite_cases import (
    HOSTILE,
    HOSTILE_FIXTURES,
    HOSTILE_ID,
    SAMPLE,
    SAMPLE_FIXTURES,
    SAMPLE_ID,
    write_case,
)

REPO = Path(__file__).resolve().parents[2]
BUILD_TIMEOUT = 600


def mkdocs_build(dest: Path, **env_extra: str) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` of the repository's site into `dest`."""
    env = {k: v for k, v in os.environ.items() if k not in ("KB_CASES", "KB_SITE_CASES")}
    env.update(env_extra)
    env["NO_MKDOCS_2_WARNING"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(REPO / "mkdocs.yml"),
         "-d", str(dest)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=BUILD_TIMEOUT, check=False,
    )


def built(dest: Path, **env_extra: str) -> Path:
    result = mkdocs_build(dest, **env_extra)
    assert result.returncode == 0, (
        f"mkdocs build --strict failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    )
    return dest


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
