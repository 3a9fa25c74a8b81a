"""What reading a folder imports, and the stand-ins that keep heavy libraries off that path
give the libraries' answers (issue 27: a warm `kb diagnose` in a quarter of a second)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name

from kb.evidence.sources.packages import canonical_name

ROOT = Path(__file__).resolve().parents[3]

NAMES = [
    "torch", "Torch", "torch_npu", "torch-npu", "Torch.NPU", "nvidia-nccl-cu12",
    "oslo.concurrency", "a-_.b", "A__B", "x...y", "zope.interface", "ruamel.yaml.clib",
    "Flask_SQLAlchemy", "-lead", "trail_", "", "ÄÖ.Ü", "mixed-_-Case.Name",
]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_package_names_are_normalized_as_packaging_does(name: str) -> None:
    assert canonical_name(name) == canonicalize_name(name)


def _imported_after_reading(folder: Path, modules: tuple[str, ...]) -> list[str]:
    probe = (
        "import json, sys\n"
        "from kb.evidence.reader import read_evidence\n"
        f"read_evidence({str(folder)!r})\n"
        f"print(json.dumps(sorted(m for m in {modules!r} if m in sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return json.loads(done.stdout)


def test_reading_package_listings_does_not_import_packaging_utils(tmp_path: Path) -> None:
    (tmp_path / "pip-freeze.txt").write_text("torch==2.1.0\naccelerate==0.28.0\n")
    (tmp_path / "pip-list.txt").write_text(
        "Package    Version\n---------- -------\ntorch_npu  2.1.0\n"
    )
    assert _imported_after_reading(tmp_path, ("packaging.utils", "packaging.tags")) == []
