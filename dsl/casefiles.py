"""Where case files are: found by path, with no parsing and no model, so a warm
`kb diagnose` can key its snapshot on them cheaply. Importing it installs the bundled
catalogue (plus KB_CATALOGUE) as the one cases are lowered against (`dsl.catalogue.registry`)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from dsl.catalogue import load as catalogue_load
from dsl.catalogue import registry as catalogue_registry

if TYPE_CHECKING:
    from dsl.diagnostics import Diagnostic

catalogue_registry.install(catalogue_load.load_default, catalogue_load.default_fingerprint)

CASE_FILE = "case.kb"
# The longest real case is ~30 KB; a case pack is untrusted input, so reading stops well above.
MAX_CASE_BYTES = 1024 * 1024
DEFAULT_CASES = Path(__file__).resolve().parent.parent / "cases"


def case_paths_from_env() -> list[Path]:
    """Extra case folders from `KB_CASES` (os.pathsep-separated), like PATH."""
    raw = os.environ.get("KB_CASES", "")
    return [Path(p) for p in raw.split(os.pathsep) if p.strip()]


def find_case_files(paths: Iterable[Path | str]) -> tuple[list[Path], list[Diagnostic]]:
    """Case files under each path: a `.kb` file, a case folder, or a folder of case folders."""
    found: list[Path] = []
    problems: list[Diagnostic] = []
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            direct = path / CASE_FILE
            if direct.is_file():
                found.append(direct)
            else:
                found.extend(sorted(p for p in path.glob(f"*/{CASE_FILE}") if p.is_file()))
        else:
            from dsl.diagnostics import Diagnostic  # only for a path that is not there

            problems.append(Diagnostic(path=str(path), message="no such file or folder", code="io"))
    unique: dict[Path, None] = {}
    for p in found:
        unique.setdefault(p.resolve(), None)
    return [Path(p) for p in unique], problems
