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
    found: list[tuple[Path, Path | None]] = []  # (path, resolved when already known)
    problems: list[Diagnostic] = []
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            found.append((path, None))
        elif path.is_dir():
            direct = path / CASE_FILE
            if direct.is_file():
                found.append((direct, None))
            else:
                found.extend(_case_folders(path))
        else:
            from dsl.diagnostics import Diagnostic  # only for a path that is not there

            problems.append(Diagnostic(path=str(path), message="no such file or folder", code="io"))
    unique: dict[Path, None] = {}
    for p, resolved in found:
        unique.setdefault(resolved or p.resolve(), None)
    return [Path(p) for p in unique], problems


def _case_folders(folder: Path) -> list[tuple[Path, Path | None]]:
    """What `sorted(p for p in folder.glob("*/case.kb") if p.is_file())` finds, each with
    its resolved path where that is plain: one `os.scandir` and a stat or two per case,
    where the glob and a `realpath` of every file (each component stat'ed again) cost ~6 ms
    of a warm `kb diagnose` for 82 cases. A case folder or file that is a symbolic link is
    left to `Path.resolve`."""
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)  # the glob's order: same parent
    except OSError:
        return []
    real = folder.resolve()
    out: list[tuple[Path, Path | None]] = []
    for entry in entries:
        if not entry.is_dir():  # follows a link, as the glob's `*` does
            continue
        path = folder / entry.name / CASE_FILE
        if not path.is_file():
            continue
        linked = entry.is_symlink() or path.is_symlink()
        out.append((path, None if linked else real / entry.name / CASE_FILE))
    return out
