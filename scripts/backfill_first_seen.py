"""Back-fill the first-seen result of the real incidents stored before it was kept (issue 25).

    python scripts/backfill_first_seen.py                  # every stored incident
    python scripts/backfill_first_seen.py --until 14:20    # commits not started by then: unknown
    python scripts/backfill_first_seen.py --dry-run cases/<id>/fixtures/negative/<incident>

For each incident folder, the commit that added its `incident.yaml` is found in `git log`; the
first-seen state is that commit's parent: the code and cases before any change that came with
the incident (a fixture added with its case finds no such case there, which is a real result
too). The parent is checked out in a temporary worktree and the folder's evidence, as it is in
this tree, is diagnosed with that code (`kb diagnose --format json`). The answer is written to
the incident's `first_seen` with `backfilled: true`; where that code cannot run, it says
`first_seen: unknown`. A recorded first-seen result is never edited.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from kb.first_seen import SHOWN, recorded, set_first_seen  # noqa: E402  (after the path insert)

INCIDENT_FILE = "incident.yaml"
PATTERN = "cases/*/fixtures/*/*/" + INCIDENT_FILE
# an old commit's JSON report without levels: the in-process API the recorder itself uses
API_RUNNER = """
import json, sys
from dsl.compiler import load_knowledge_base
from kb.match.diagnose import diagnose_bundle, read_bundle
kb = load_knowledge_base()
d = diagnose_bundle(kb, read_bundle(kb, sys.argv[1], workers=1))
print(json.dumps([[v.id, v.level] for v in d.ranked]))
"""


class RunError(Exception):
    """The old code could not diagnose the folder (said why)."""


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RunError(f"git {' '.join(args[:2])}: {done.stderr.strip()[:200]}")
    return done.stdout.strip()


def adding_commit(repo: Path, path: str) -> str | None:
    """The oldest commit that added `path` (None: never committed)."""
    shas = git(repo, "log", "--diff-filter=A", "--format=%H", "--", path).split()
    return shas[-1] if shas else None


def parent_of(repo: Path, sha: str) -> str | None:
    """The first parent of `sha` (None for a root commit: there is no "before")."""
    try:
        return git(repo, "rev-parse", "--verify", "--quiet", f"{sha}^") or None
    except RunError:
        return None


@dataclass
class Plan:
    groups: dict[str, list[str]] = field(default_factory=dict)  # parent -> incident folders
    dates: dict[str, str] = field(default_factory=dict)  # folder -> day it was stored
    unknown: dict[str, str] = field(default_factory=dict)  # folder -> why no run is possible
    uncommitted: list[str] = field(default_factory=list)  # left as they are: record them live


def plan(repo: Path, folders: Iterable[str]) -> Plan:
    """Group the incident folders (paths relative to `repo`) by the commit to diagnose them at."""
    out = Plan()
    for folder in folders:
        added = adding_commit(repo, f"{folder}/{INCIDENT_FILE}")
        if added is None:
            out.uncommitted.append(folder)
            continue
        parent = parent_of(repo, added)
        if parent is None:
            out.unknown[folder] = "stored in the root commit: no code before it"
            continue
        out.groups.setdefault(parent, []).append(folder)
        out.dates[folder] = git(repo, "log", "-1", "--format=%cs", added)
    return out


def entry_point(worktree: Path) -> tuple[str, str]:
    """The `kb` console script at that commit: (module, function)."""
    try:
        text = (worktree / "pyproject.toml").read_text(encoding="utf-8")
    except OSError as exc:
        raise RunError(f"no pyproject.toml: {exc}") from None
    section = text.partition("[project.scripts]")[2].split("\n[", 1)[0]
    found = re.search(r'^kb\s*=\s*"([\w.]+(?::\w+)?)"', section, re.M)
    if not found:
        raise RunError("no `kb` script in pyproject.toml's [project.scripts]")
    target = found.group(1)
    module, _, function = target.partition(":")
    return module, function or "main"


def _env(worktree: Path, sha: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("KB_CASES", "KB_CATALOGUE")}
    env["PYTHONPATH"] = str(worktree)
    env["KB_CACHE_DIR"] = f"/tmp/bf-cache-{sha[:12]}"
    return env


def ranked_of(report: dict) -> list[tuple[str, str]] | None:
    """[(case, level)] of `matches` then `possible`; None when the report has no levels."""
    if "possible" not in report:
        return None
    entries = list(report.get("matches", [])) + list(report.get("possible", []))
    if any("level" not in e for e in entries):
        return None
    return [(e["id"], e["level"]) for e in entries][:SHOWN]


def diagnose_at(
    worktree: Path, sha: str, folder: Path, python: str, timeout: float
) -> tuple[list[tuple[str, str]], str]:
    """Diagnose `folder` (this tree's copy) with the code in `worktree`: (ranked, how)."""
    module, function = entry_point(worktree)
    cli = (worktree / "kb" / "cli" / "diagnose.py").read_text(encoding="utf-8", errors="replace")
    args = ["diagnose", "--format", "json", "--evidence", str(folder)]
    if "--no-pager" in cli:
        args.insert(1, "--no-pager")
    code = (
        f"import sys; sys.argv[0] = 'kb'; from {module} import {function}; sys.exit({function}())"
    )
    env = _env(worktree, sha)

    def run(cmd: list[str]) -> str:
        try:
            done = subprocess.run(
                cmd, cwd=worktree, env=env, capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            raise RunError(f"no answer in {timeout:.0f} s") from None
        if done.returncode not in (0, 1) or not done.stdout.strip():
            tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise RunError(f"exit {done.returncode}: {tail[:200]}")
        return done.stdout

    out = run([python, "-c", code, *args])
    try:
        report = json.loads(out)
    except json.JSONDecodeError:
        raise RunError("the JSON report did not parse") from None
    ranked = ranked_of(report)
    if ranked is not None:
        return ranked, "cli"
    try:  # the report at that commit named no levels: the same diagnosis, in process
        pairs = json.loads(run([python, "-c", API_RUNNER, str(folder)]))
    except json.JSONDecodeError:
        raise RunError("the in-process diagnosis printed no JSON") from None
    return [(str(c), str(lv)) for c, lv in pairs][:SHOWN], "api"


def _deadline(text: str | None) -> float | None:
    if not text:
        return None
    hour, minute = (int(x) for x in text.split(":"))
    now = datetime.datetime.now(datetime.timezone.utc)
    return now.replace(hour=hour, minute=minute, second=0, microsecond=0).timestamp()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/backfill_first_seen.py", description=__doc__)
    parser.add_argument("folders", nargs="*", help="incident folders (default: every stored one)")
    parser.add_argument("--until", metavar="HH:MM", help="UTC: commits not started by then get "
                        "`unknown`")  # fmt: skip
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per run (60)")
    parser.add_argument("--jobs", type=int, default=2, help="runs at once per commit (2)")
    parser.add_argument("--dry-run", action="store_true", help="print, write nothing")
    args = parser.parse_args(argv)
    try:
        until = _deadline(args.until)
    except ValueError:
        parser.error(f"--until wants HH:MM (UTC), not {args.until!r}")
    if args.folders:
        folders = []
        for f in args.folders:
            path = Path(f).resolve()
            if not (path / INCIDENT_FILE).is_file() or not path.is_relative_to(REPO):
                parser.error(f"{f}: not an incident folder of this repository")
            folders.append(path.relative_to(REPO).as_posix())
    else:
        folders = sorted(str(p.parent.relative_to(REPO)) for p in REPO.glob(PATTERN))
    kept = [f for f in folders if recorded((REPO / f / INCIDENT_FILE).read_text("utf-8"))]
    todo = [f for f in folders if f not in kept]
    work = plan(REPO, todo)
    print(
        f"{len(folders)} incidents: {len(kept)} with a recorded result (kept), "
        f"{len(work.uncommitted)} not committed (left), {len(work.groups)} commits to run at",
        flush=True,
    )
    python = sys.executable
    results: dict[str, tuple[str, list[tuple[str, str]]] | None] = {}
    reasons: dict[str, str] = dict(work.unknown)
    how: Counter[str] = Counter()
    for n, (sha, group) in enumerate(sorted(work.groups.items(), key=lambda kv: -len(kv[1]))):
        if until is not None and time.time() > until:
            for folder in group:
                reasons[folder] = f"not run: out of time before commit {sha[:12]}"
            continue
        started = time.time()
        worktree = Path(f"/tmp/bf-{sha[:12]}")
        try:
            git(REPO, "worktree", "add", "--detach", str(worktree), sha)
        except RunError as exc:
            for folder in group:
                reasons[folder] = f"worktree at {sha[:12]}: {exc}"
            continue
        try:
            # the first run alone: it compiles the commit's cases into its cache
            def one(folder: str, worktree: Path = worktree, sha: str = sha) -> None:
                try:
                    ranked, way = diagnose_at(worktree, sha, REPO / folder, python, args.timeout)
                    results[folder] = (sha[:12], ranked)
                    how[way] += 1
                except (RunError, OSError) as exc:
                    reasons[folder] = f"at {sha[:12]}: {exc}"

            one(group[0])
            with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
                list(pool.map(one, group[1:]))
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force",
                            str(worktree)], capture_output=True, check=False)  # fmt: skip
            shutil.rmtree(f"/tmp/bf-cache-{sha[:12]}", ignore_errors=True)
        ran = sum(f in results for f in group)
        print(
            f"[{n + 1}/{len(work.groups)}] {sha[:12]}: {ran}/{len(group)} diagnosed "
            f"in {time.time() - started:.0f} s",
            flush=True,
        )
    written = Counter[str]()
    for folder in todo:
        if folder in work.uncommitted:
            continue
        path = REPO / folder / INCIDENT_FILE
        got = results.get(folder)
        if got is None:
            print(f"unknown: {folder}: {reasons.get(folder, 'not run')}", flush=True)
            if not args.dry_run and set_first_seen(path, None):
                written["unknown"] += 1
            continue
        commit, ranked = got
        if args.dry_run:
            print(f"{folder}: at {commit}: {ranked}")
        elif set_first_seen(path, commit, work.dates[folder], ranked, backfilled=True):
            written["result"] += 1
    print(
        f"done: {sum(1 for f in todo if f in results)} back-filled "
        f"({how['cli']} by the CLI's JSON, {how['api']} in process where the JSON had no "
        f"levels), {len(reasons)} unknown, {len(kept)} kept; written {dict(written)}"
        + (" (dry run: nothing written)" if args.dry_run else ""),
        flush=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
