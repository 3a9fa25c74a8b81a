"""Builds a recorded `issues` event payload from a stored real incident, for the tests and
the README's example: the body is the incident rebuilt as a reporter would paste it
(`issue_form.issue_body`). The payload says so in its `_recorded` field; it was never
delivered by GitHub.

    .venv/bin/python tests/triage/make_event.py cases/<case>/fixtures/positive/<name> OUT.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from issue_form import issue_body

from kb.incidents import read_meta

ROOT = Path(__file__).resolve().parents[2]


def event_for(folder: Path, number: int = 1, action: str = "opened") -> dict[str, object]:
    meta = read_meta(folder)
    source = getattr(meta, "source", "") if meta is not None and not isinstance(meta, str) else ""
    where = folder.resolve().relative_to(ROOT).as_posix()
    return {
        "_recorded": f"built by tests/triage/make_event.py from the stored real incident {where} "
        f"(first posted at {source}); its notes and files as one issue body; not a GitHub delivery",
        "action": action,
        "issue": {
            "number": number,
            "title": f"Stored incident {folder.name}",
            "body": issue_body(folder),
            "user": {"login": "reporter"},
            "comments": 0,
        },
        "repository": {"full_name": "example/project"},
    }


if __name__ == "__main__":
    folder, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.write_text(json.dumps(event_for(folder), indent=2, ensure_ascii=False) + "\n", "utf-8")
