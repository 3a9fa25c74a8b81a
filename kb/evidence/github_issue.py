"""A GitHub issue as JSON, recognised by its content: the texts in it that are evidence.

Shapes read (what the REST API, `gh` and an Actions event hand over):

- an issue object: `{"title": …, "body": …, "user": {"login": …}, "comments": [...]}`
  (`GET /repos/O/R/issues/N`; `comments` is a count there, a list when you add them, as
  `gh issue view N --json title,body,author,comments` does with `author` for `user`);
- an event payload: `{"action": "opened", "issue": {…}, "comment": {…}?}` (GITHUB_EVENT_PATH);
- a list of comment objects: `[{"body": …, "user": {"login": …}}, …]`
  (`GET /repos/O/R/issues/N/comments`).

Read: the title, the body, and the comments written by the issue's author (the captures a
maintainer asked for arrive there). Other people's comments are not the reporter's evidence
(another machine, a guess), and a comment carrying `TRIAGE_MARKER` is this tool's own answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

TRIAGE_MARKER = "<!-- distkb-triage -->"
MAX_COMMENTS = 50  # comments read at most: a long thread's tail is discussion, not captures


@dataclass
class IssueText:
    """One text of the issue: `name` is how its lines are cited (`body.md`, `comment-2.md`)."""

    name: str
    text: str
    author: str = ""


@dataclass
class Issue:
    title: str
    texts: list[IssueText]  # body first, then the comments read
    author: str = ""
    number: int | None = None
    comments_seen: int = 0  # every comment in the JSON, read or not
    triaged: bool = False  # a comment already carries TRIAGE_MARKER


def _login(obj: dict[str, Any]) -> str:
    who = obj.get("user") or obj.get("author") or {}
    return str(who.get("login", "")) if isinstance(who, dict) else ""


def _is_text_object(obj: object) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("body"), str | type(None)) and "body" in obj


def parse_issue(data: object) -> Issue | None:
    """The issue in decoded JSON, or None when it is not one of the shapes above.

    >>> i = parse_issue({"title": "Hang", "body": "x", "user": {"login": "a"},
    ...                  "comments": [{"body": "y", "user": {"login": "b"}},
    ...                               {"body": "z", "user": {"login": "a"}}]})
    >>> [(t.name, t.text) for t in i.texts], i.comments_seen
    ([('body.md', 'x'), ('comment-2.md', 'z')], 2)
    """
    if isinstance(data, dict) and isinstance(data.get("issue"), dict):
        event = data
        issue = parse_issue(event["issue"])
        if issue is not None and _is_text_object(event.get("comment")):
            _add_comments(issue, [event["comment"]], start=issue.comments_seen + 1)
        return issue
    if isinstance(data, list) and data and all(_is_text_object(c) for c in data):
        issue = Issue(title="", texts=[])
        _add_comments(issue, data, start=1, everyone=True)
        return issue
    if not (isinstance(data, dict) and _is_text_object(data)):
        return None
    if not any(k in data for k in ("title", "number", "html_url", "user", "author")):
        return None  # some other object with a `body`
    title = data.get("title")
    issue = Issue(
        title=title if isinstance(title, str) else "",
        texts=[IssueText("body.md", data.get("body") or "", _login(data))],
        author=_login(data),
        number=data["number"] if isinstance(data.get("number"), int) else None,
    )
    comments = data.get("comments")
    if isinstance(comments, list):
        _add_comments(issue, [c for c in comments if _is_text_object(c)], start=1)
    return issue


def _add_comments(issue: Issue, comments: list[Any], *, start: int, everyone: bool = False) -> None:
    for n, comment in enumerate(comments, start):
        issue.comments_seen += 1
        body = comment.get("body") or ""
        if TRIAGE_MARKER in body:
            issue.triaged = True
            continue
        who = _login(comment)
        mine = everyone or not issue.author or who == issue.author
        if mine and len(issue.texts) <= MAX_COMMENTS:
            issue.texts.append(IssueText(f"comment-{n}.md", body, who))


def load_issue(raw: bytes) -> Issue | None:
    """The issue in a JSON document, or None when it is not JSON or not an issue."""
    if raw.lstrip()[:1] not in (b"{", b"["):
        return None
    try:
        data = json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    return parse_issue(data)
