"""`kb triage`: read the issue of a GitHub Actions `issues` event and answer it once.

A dry run (the default) prints what it would do; `--post` with a token comments through the
REST API. A case at the minimum level or better gets one comment (marked, never twice);
below it, only a label suggestion and the one capture that would settle it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from kb.cli.common import add_cases_option
from kb.cli.options import exit_status

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_STATUS = exit_status(
    (EXIT_OK, "done: commented, labelled, printed (dry run) or nothing to do"),
    (EXIT_FAILED, "the GitHub API refused a request (said in one line)"),
    (EXIT_USAGE, "usage error, no event file, an event that is not about an issue"),
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "triage",
        help="answer a new GitHub issue once with the case it shows (for an Action)",
        description="Read the issue of an `issues` event (opened or edited) as `kb diagnose` "
        "reads an issue body; when a case is at the minimum level or better, print (dry run, "
        "the default) or post one comment with the case, its level, the lines behind it, "
        "the first fix, its page and what to attach to confirm it. Below that level, only a "
        "label suggestion and the one capture to ask for.",
        epilog=EXIT_STATUS,
    )
    p.add_argument(
        "--event",
        metavar="PATH",
        help="the event payload (default: $GITHUB_EVENT_PATH, as in a GitHub Action)",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--dry-run", action="store_true", help="print what would be done (the default)"
    )
    mode.add_argument(
        "--post", action="store_true", help="comment and label through the API (needs a token)"
    )
    p.add_argument(
        "--min-level",
        choices=("likely", "confirmed"),
        default="likely",
        help="the level a case needs for a comment (default likely)",
    )
    p.add_argument(
        "--label", action="append", default=[], metavar="NAME", help="label added with a comment"
    )
    p.add_argument(
        "--needs-label",
        default="needs-evidence",
        metavar="NAME",
        help="label suggested when no case reaches the level ('' for none; default needs-evidence)",
    )
    p.add_argument(
        "--skip-case", action="append", default=[], metavar="ID", help="never name this case"
    )
    p.add_argument(
        "--language",
        choices=("auto", "en", "zh"),
        default="auto",
        help="language of the comment (default: the issue's, English or Chinese)",
    )
    p.add_argument(
        "--site-url",
        default=os.environ.get("KB_SITE_URL", ""),
        metavar="URL",
        help="where the case pages are published (default $KB_SITE_URL)",
    )
    p.add_argument("--repo", metavar="OWNER/NAME", help="default: $GITHUB_REPOSITORY")
    p.add_argument(
        "--token-env",
        default="GITHUB_TOKEN",
        metavar="NAME",
        help="variable holding the token for --post (default GITHUB_TOKEN)",
    )
    p.add_argument(
        "--format",
        "-f",
        choices=("text", "json"),
        default="text",
        help="text for a person (default) or json: the decision, with the comment",
    )
    add_cases_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from kb.cli.common import load_kb
    from kb.triage.event import HANDLED, EventError, load_event

    where = args.event or os.environ.get("GITHUB_EVENT_PATH")
    if not where:
        print("kb triage: no event: give --event PATH or set GITHUB_EVENT_PATH", file=sys.stderr)
        return EXIT_USAGE
    try:
        event = load_event(Path(where))
    except EventError as exc:
        print(f"kb triage: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if event.action not in HANDLED:
        _say(args, {"action": "none", "reason": f"event action `{event.action}` is not handled"})
        return EXIT_OK
    kb = load_kb(args)
    unknown = sorted(set(args.skip_case) - {c.case.id for c in kb.cases})
    if unknown:
        print(f"kb triage: --skip-case: no case {', '.join(unknown)}", file=sys.stderr)
        return EXIT_USAGE
    from kb.triage.decide import TriageOptions, triage_issue

    options = TriageOptions(
        min_level=args.min_level,
        labels=list(args.label),
        needs_label=args.needs_label,
        skip=frozenset(args.skip_case),
        language=args.language,
        site_url=args.site_url,
    )
    decision = triage_issue(event.issue, kb, options)
    result: dict[str, Any] = {
        "issue": event.number,
        "action": decision.action,
        "reason": decision.reason,
        "case": decision.case,
        "level": decision.level,
        "labels": decision.labels,
        "ask": decision.ask,
        "comment": decision.comment,
        "posted": False,
    }
    if args.post and decision.action != "none":
        from kb.triage.post import PostError, post

        try:
            result.update(post(decision, event, args.repo, os.environ.get(args.token_env, "")))
        except PostError as exc:
            print(f"kb triage: {exc}", file=sys.stderr)
            return EXIT_FAILED
    _say(args, result)
    return EXIT_OK


def _say(args: argparse.Namespace, result: dict[str, Any]) -> None:
    if args.format == "json":
        print(json.dumps(result, ensure_ascii=False, indent=2))
        return
    mode = "posted" if result.get("posted") else "dry run" if not args.post else "not posted"
    print(f"kb triage ({mode}): {result['action']}: {result['reason']}")
    if result.get("labels"):
        print("labels: " + ", ".join(str(x) for x in result["labels"]))
    if result.get("ask"):
        print(f"ask the reporter for: {result['ask']}")
    if result.get("comment"):
        print("--- comment ---")
        print(str(result["comment"]), end="")
