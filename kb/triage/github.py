"""The GitHub REST calls kb triage makes, with urllib only: list an issue's comments (to
never answer twice), post the comment, add labels. Reached only with `--post` and a token;
a dry run never builds a client."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from kb.evidence.github_issue import TRIAGE_MARKER

TIMEOUT = 30  # seconds per request
MAX_PAGES = 10  # 100 comments a page: an issue with more is a discussion, not a new report


class ApiError(Exception):
    """A request failed: said in one line (status and GitHub's message), never the token."""


class GitHub:
    def __init__(self, token: str, repository: str, api_url: str = "https://api.github.com"):
        if not token:
            raise ApiError("posting needs a token (GITHUB_TOKEN)")
        if repository.count("/") != 1:
            raise ApiError(f"repository must be owner/name, not {repository!r}")
        self._token = token
        self._base = f"{api_url.rstrip('/')}/repos/{repository}"

    def _call(self, method: str, path: str, payload: Any = None) -> Any:
        data = json.dumps(payload).encode() if payload is not None else None
        request = urllib.request.Request(
            self._base + path,
            data=data,
            method=method,
            headers={
                "Authorization": f"Bearer {self._token}",
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28",
                "User-Agent": "distkb-triage",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                body = response.read()
        except urllib.error.HTTPError as exc:
            raise ApiError(f"{method} {path}: HTTP {exc.code} {exc.reason}") from None
        except (urllib.error.URLError, OSError) as exc:
            raise ApiError(f"{method} {path}: {exc}") from None
        return json.loads(body) if body else None

    def answered(self, number: int) -> bool:
        """Whether a comment on the issue already carries kb triage's marker."""
        for page in range(1, MAX_PAGES + 1):
            comments = self._call("GET", f"/issues/{number}/comments?per_page=100&page={page}")
            if not isinstance(comments, list):
                return False
            if any(TRIAGE_MARKER in str(c.get("body") or "") for c in comments):
                return True
            if len(comments) < 100:
                return False
        return False

    def comment(self, number: int, body: str) -> None:
        self._call("POST", f"/issues/{number}/comments", {"body": body})

    def add_labels(self, number: int, labels: list[str]) -> None:
        if labels:
            self._call("POST", f"/issues/{number}/labels", {"labels": labels})
