"""Add real incidents gathered from public threads to the fixtures, first-seen result first.

    python -m kb.intake GATHERED-FOLDER [...]

Each folder holds the machine output as posted, `notes.md` and an `incident.yaml` (see
kb/incidents.py). In one run, from committed code: every folder is diagnosed and its
first-seen result written into its own `incident.yaml` (`kb.first_seen`), then the folder
is copied to `cases/<case>/fixtures/positive/<name>` (a hit) or
`cases/<near_miss_of>/fixtures/negative/<name>` (a near miss). Nothing is tuned in between,
so the first-seen figure stays honest. Links are never followed or copied.
"""

from __future__ import annotations

import argparse
import datetime
import shutil
import sys
from pathlib import Path

from kb.evidence.inputs import INCIDENT_FILE
from kb.first_seen import committed_state, record
from kb.incidents import read_meta

CASES = Path(__file__).resolve().parent.parent / "cases"
MAX_FILES = 200


def target_of(folder: Path, cases: Path = CASES) -> Path | str:
    """Where the incident belongs among the fixtures, or why it cannot be stored."""
    meta = read_meta(folder)
    if meta is None or isinstance(meta, str):
        return f"{INCIDENT_FILE}: {meta or 'missing'}"
    if meta.near_miss_of not in (None, "none"):
        home = cases / str(meta.near_miss_of) / "fixtures" / "negative"
    elif meta.expected is not None:
        home = cases / meta.expected / "fixtures" / "positive"
    else:
        return "neither a case nor a near miss: nothing to measure it against"
    if not home.parent.parent.is_dir():
        return f"no case folder {home.parent.parent.name}"
    return home / folder.name


def copy_incident(source: Path, target: Path) -> int:
    """Regular files only, at most MAX_FILES; returns how many were copied."""
    if target.exists():
        raise FileExistsError(f"{target} exists already")
    copied = 0
    for path in sorted(source.rglob("*")):
        if path.is_symlink() or not path.is_file() or copied >= MAX_FILES:
            continue
        out = target / path.relative_to(source)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, out)
        copied += 1
    return copied


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kb.intake", description=__doc__)
    parser.add_argument("folders", nargs="+", type=Path, metavar="GATHERED-FOLDER")
    args = parser.parse_args(argv)
    commit = committed_state()
    if commit is None:
        print("kb.intake: commit cases/, catalogue/, kb/ and dsl/ first", file=sys.stderr)
        return 2
    targets: dict[Path, Path] = {}
    for folder in args.folders:
        where = target_of(folder)
        if isinstance(where, str):
            print(f"{folder}: not stored: {where}")
        elif where.exists():
            print(f"{folder}: not stored: {where} exists already")
        else:
            targets[folder] = where
    for line in record(list(targets), commit, datetime.date.today().isoformat()):
        print(line)
    for folder, target in targets.items():
        print(f"{folder} -> {target} ({copy_incident(folder, target)} files)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
