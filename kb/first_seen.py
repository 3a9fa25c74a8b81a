"""Record how the tool did on a real incident the first time it saw it.

    python -m kb.first_seen cases/<id>/fixtures/negative/<incident> [...]

Run it when an incident is added, before any case or catalogue changes for it: it diagnoses
the folder with the committed knowledge base and appends `first_seen` (the commit, the date,
the cases named with their levels) to the folder's `incident.yaml`. A folder that already has
a first-seen result is left as it is: the figure is only honest if it is never re-measured.
"""

from __future__ import annotations

import argparse
import datetime
import subprocess
import sys
from pathlib import Path

from dsl.compiler import load_knowledge_base
from kb.evidence.inputs import INCIDENT_FILE
from kb.match.diagnose import diagnose_bundle, read_bundle

REPO = Path(__file__).resolve().parent.parent
WATCHED = ("cases", "catalogue", "kb", "dsl")  # what a first-seen result depends on
SHOWN = 5


def _git(*args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(REPO), *args], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() if done.returncode == 0 else ""


def committed_state() -> str | None:
    """The commit the knowledge base is at, or None when it has uncommitted changes."""
    if _git("status", "--porcelain", "--", *WATCHED):
        return None
    return _git("rev-parse", "--short=12", "HEAD") or None


def has_first_seen(text: str) -> bool:
    return any(line.startswith("first_seen:") for line in text.splitlines())


def first_seen_yaml(commit: str, date: str, ranked: list[tuple[str, str]]) -> str:
    pairs = ", ".join(f"[{case}, {level}]" for case, level in ranked)
    return f'first_seen:\n  commit: "{commit}"\n  date: "{date}"\n  ranked: [{pairs}]\n'


def record(folders: list[Path], commit: str, today: str) -> list[str]:
    """Diagnose each folder and append its first-seen result; one line per folder, said."""
    kb = load_knowledge_base()
    said = []
    for folder in folders:
        meta = folder / INCIDENT_FILE
        if not meta.is_file():
            said.append(f"{folder}: no {INCIDENT_FILE}, skipped")
            continue
        text = meta.read_text(encoding="utf-8")
        if has_first_seen(text):
            said.append(f"{folder}: already has a first-seen result, kept")
            continue
        diagnosis = diagnose_bundle(kb, read_bundle(kb, str(folder), workers=1))
        ranked = [(v.id, v.level) for v in diagnosis.ranked][:SHOWN]
        block = first_seen_yaml(commit, today, ranked)
        meta.write_text(text.rstrip("\n") + "\n" + block, encoding="utf-8")
        first = f"{ranked[0][0]} ({ranked[0][1]})" if ranked else "nothing"
        said.append(f"{folder}: first seen at {commit}: {first}")
    return said


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kb.first_seen", description=__doc__)
    parser.add_argument("folders", nargs="+", type=Path, metavar="INCIDENT-FOLDER")
    args = parser.parse_args(argv)
    commit = committed_state()
    if commit is None:
        print(
            "kb.first_seen: cases/, catalogue/, kb/ or dsl/ have uncommitted changes; commit "
            "first, so the result names the code that produced it",
            file=sys.stderr,
        )
        return 2
    for line in record(args.folders, commit, datetime.date.today().isoformat()):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
