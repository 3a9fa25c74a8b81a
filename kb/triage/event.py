"""The Actions event kb triage answers: an `issues` event, `opened` or `edited`.

The payload (GITHUB_EVENT_PATH) holds the issue; it holds no comments, so the check for an
earlier answer asks the API when posting. A recorded payload may carry
`issue.comments` as a list (as the tests' does): those are checked too."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HANDLED = ("opened", "edited")
MAX_EVENT = 8 << 20  # an event payload is small; a larger file is not one


class EventError(Exception):
    """The event file is missing, unreadable or not an issue event: said in one line."""


@dataclass
class IssueEvent:
    action: str
    issue: dict[str, Any]
    repository: str  # owner/name

    @property
    def number(self) -> int | None:
        n = self.issue.get("number")
        return n if isinstance(n, int) else None


def load_event(path: Path) -> IssueEvent:
    try:
        if path.stat().st_size > MAX_EVENT:
            raise EventError(f"{path}: larger than {MAX_EVENT} bytes, not an event payload")
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise EventError(f"{path}: not a readable JSON event ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("issue"), dict):
        raise EventError(f"{path}: no `issue` in the payload (not an `issues` event)")
    if "pull_request" in data["issue"]:
        raise EventError(f"{path}: the event is about a pull request, not an issue")
    repo = data.get("repository")
    name = repo.get("full_name", "") if isinstance(repo, dict) else ""
    return IssueEvent(str(data.get("action", "")), data["issue"], str(name))
