"""Acting on a decision through the API: the one step of kb triage that reaches the network,
and only with `--post` and a token. The check for an earlier answer is made here, against
the issue's comments as they are now."""

from __future__ import annotations

import os

from kb.triage.decide import Decision
from kb.triage.event import IssueEvent


class PostError(Exception):
    """Posting failed or cannot be tried: said in one line."""


def post(decision: Decision, event: IssueEvent, repo: str | None, token: str) -> dict[str, object]:
    from kb.triage.github import ApiError, GitHub

    number = event.number
    repository = repo or event.repository or os.environ.get("GITHUB_REPOSITORY", "")
    if number is None:
        raise PostError("the event's issue has no number")
    try:
        client = GitHub(
            token, repository, os.environ.get("GITHUB_API_URL", "https://api.github.com")
        )
        if decision.action == "comment":
            if client.answered(number):
                return {"action": "none", "reason": "already answered (a marked comment exists)"}
            client.comment(number, decision.comment)
        client.add_labels(number, decision.labels)
    except ApiError as exc:
        raise PostError(str(exc)) from None
    return {"posted": True}
