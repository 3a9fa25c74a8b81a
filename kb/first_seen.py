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
import io
import subprocess
import sys
from pathlib import Path
from typing import Any

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


def recorded(text: str) -> bool:
    """Whether the incident.yaml text holds a real first-seen result (not absent, not
    `unknown`): such a result is never edited."""
    from ruamel.yaml import YAML, YAMLError

    try:
        data = YAML(typ="safe").load(text)
    except YAMLError:
        return has_first_seen(text)  # unreadable: be safe, treat any first_seen as recorded
    return isinstance(data, dict) and isinstance(data.get("first_seen"), dict)


def _round_trip() -> Any:
    from ruamel.yaml import YAML

    yaml = YAML()  # round-trip: comments, key order and quotes kept
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap a long `established:` line
    # `near_miss_of: null` stays `null` (ruamel would write an empty value)
    yaml.representer.add_representer(
        type(None), lambda r, _: r.represent_scalar("tag:yaml.org,2002:null", "null")
    )
    return yaml


def set_first_seen(
    path: Path,
    commit: str | None,
    date: str = "",
    ranked: list[tuple[str, str]] | None = None,
    backfilled: bool = False,
) -> bool:
    """Write `first_seen` into an incident.yaml (commit None: `unknown`), every other key and
    comment left as it was. A recorded result is kept: returns False and writes nothing."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    text = path.read_text(encoding="utf-8")
    if recorded(text):
        return False
    yaml = _round_trip()
    data = yaml.load(text)
    if commit is None:
        value: Any = "unknown"
    else:
        pairs = CommentedSeq(CommentedSeq(pair) for pair in (ranked or []))
        pairs.fa.set_flow_style()
        value = CommentedMap(
            commit=DoubleQuotedScalarString(commit), date=DoubleQuotedScalarString(date)
        )
        value["ranked"] = pairs
        if backfilled:
            value["backfilled"] = True
    data["first_seen"] = value
    out = io.StringIO()
    yaml.dump(data, out)
    path.write_text(out.getvalue(), encoding="utf-8")
    return True


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
