"""Running the real site build the way a person or CI does, from the tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD_TIMEOUT = 600


def mkdocs_build(dest: Path, **env_extra: str) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` of the repository's site into `dest`."""
    env = {k: v for k, v in os.environ.items() if k not in ("KB_CASES", "KB_SITE_CASES")}
    env.update(env_extra)
    env["NO_MKDOCS_2_WARNING"] = "1"
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-f",
            str(REPO / "mkdocs.yml"),
            "-d",
            str(dest),
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
        check=False,
    )


def built(dest: Path, **env_extra: str) -> Path:
    result = mkdocs_build(dest, **env_extra)
    assert result.returncode == 0, (
        f"mkdocs build --strict failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    )
    return dest
