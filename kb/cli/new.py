"""`kb new CASE-ID [--from-evidence PATH]`: start a case folder, blank or drafted from a
real incident's evidence (copied in redacted as the first positive fixture).

Exit 0 when the folder was written, 1 when the draft was written but does not yet pass its
own fixture, 2 on usage errors (bad id, existing folder, missing evidence).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from dsl.api import DEFAULT_CASES, case_paths_from_env

MAX_ID = 100  # a folder name, a page URL and a heading: short
KEBAB = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")  # fullmatch: `$` would let a trailing newline in


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "new",
        help="start a new case folder (optionally drafted from real evidence)",
        description="Create cases/<id>/ with a commented case.kb and fixtures/positive and "
        "fixtures/negative folders. With --from-evidence, copy the evidence in (redacted) as "
        "the first positive fixture and draft evidence queries from its error lines.",
    )
    p.add_argument("case_id", metavar="CASE-ID", help="kebab-case id, e.g. nccl-ib-retry-exceeded")
    p.add_argument(
        "--from-evidence",
        metavar="PATH",
        type=Path,
        help="an evidence folder, log file or .tar/.tar.gz/.zip archive",
    )
    p.add_argument(
        "--fixture-name",
        metavar="NAME",
        help="name of the positive fixture folder (default: from PATH)",
    )
    p.add_argument(
        "--cases",
        action="append",
        default=[],
        metavar="DIR",
        type=Path,
        help="the case folder to create the case in (default: ./cases, else the "
        "bundled cases); KB_CASES folders are searched for duplicate ids",
    )
    p.set_defaults(func=run)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.") or "evidence"


def _target_root(args: argparse.Namespace) -> Path:
    if args.cases:
        return Path(args.cases[0])
    local = Path.cwd() / "cases"
    return local if local.is_dir() else DEFAULT_CASES


def _existing(case_id: str, root: Path) -> Path | None:
    for base in [root, DEFAULT_CASES, *case_paths_from_env()]:
        if (base / case_id).exists():
            return base / case_id
    return None


def _fail(message: str) -> int:
    print(f"kb new: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    case_id: str = args.case_id
    if len(case_id) > MAX_ID:
        return _fail(f"case id `{case_id[:40]}…` is {len(case_id)} characters; at most {MAX_ID}")
    if not KEBAB.fullmatch(case_id):
        return _fail(
            f"case id `{case_id}` is not kebab-case: lower-case letters and digits "
            f"joined by `-`, e.g. `{_slug(case_id).replace('.', '-')}`"
        )
    root = _target_root(args)
    clash = _existing(case_id, root)
    if clash is not None:
        return _fail(f"{clash} already exists; pick another id or edit that case")
    evidence: Path | None = args.from_evidence
    if evidence is not None and not evidence.exists():
        return _fail(f"no such evidence file or folder: {evidence}")
    folder = root / case_id
    try:
        for kind in ("positive", "negative"):
            (folder / "fixtures" / kind).mkdir(parents=True)
            (folder / "fixtures" / kind / ".gitkeep").touch()
        if evidence is None:
            from kb.scaffold.draft import blank_case

            (folder / "case.kb").write_text(blank_case(case_id), encoding="utf-8")
            print(f"created {folder}/case.kb and empty fixtures/positive/, fixtures/negative/")
            print(
                "next: add evidence folders, write the TODOs, then `kb check` and "
                f"`kb test {case_id}` (see CONTRIBUTING.md)"
            )
            return 0
        return _draft(args, case_id, folder, evidence)
    except OSError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        return _fail(f"cannot write {folder}: {exc.strerror or exc}")
    except BaseException as exc:  # never leave a half-made case that blocks the same id
        shutil.rmtree(folder, ignore_errors=True)
        if not isinstance(exc, Exception):
            raise  # Ctrl-C: the folder is gone, the interrupt goes on
        return _fail(
            f"internal error drafting the case (nothing was kept): {type(exc).__name__}: {exc}"
        )


def _draft(args: argparse.Namespace, case_id: str, folder: Path, evidence: Path) -> int:
    from kb.scaffold.draft import draft_from_fixture
    from kb.scaffold.evidence_copy import copy_redacted

    name = _slug(args.fixture_name or evidence.name.split(".tar")[0].removesuffix(".zip"))
    fixture = folder / "fixtures" / "positive" / name
    report = copy_redacted(evidence, fixture)
    fixture = folder / "fixtures" / "positive" / report.redactor.redact_path(name)
    if fixture.name != name:
        (folder / "fixtures" / "positive" / name).rename(fixture)
    if not report.written:
        shutil.rmtree(folder, ignore_errors=True)
        return _fail(
            f"no readable text files in {evidence}"
            + "".join(f"\n  skipped {s}" for s in report.skipped)
        )
    text, queries = draft_from_fixture(
        case_id, str(fixture), report.written, source=f"fixtures/positive/{fixture.name}"
    )
    (folder / "case.kb").write_text(text, encoding="utf-8")
    r = report.redactor
    print(f"created {folder}/case.kb")
    print(
        f"copied {len(report.written)} file(s) ({report.size // 1024} KB) to "
        f"fixtures/positive/{fixture.name}/, redacted: {len(set(r.hosts.values()))} host(s), "
        f"{len(r.ipv4) + len(r.ipv6)} address(es), {r.secrets} secret(s)"
    )
    for s in report.skipped:
        print(f"  skipped {s}")
    print(
        f"drafted {len(queries)} evidence quer{'y' if len(queries) == 1 else 'ies'}: "
        + ", ".join(q.name for q in queries)
    )
    print("review the copied files for anything else private before committing")
    return _self_test(case_id, folder)


def _self_test(case_id: str, folder: Path) -> int:
    """The draft must match its own evidence; say so now rather than in review."""
    from kb.fixtures import check_fixture, default_roots, fixtures_of, knowledge_base_for

    roots = default_roots(folder)
    knowledge_base_for.cache_clear()
    compiled = knowledge_base_for(roots).get(case_id)
    if compiled is None:
        print("the draft does not compile yet: run `kb check` on it", file=sys.stderr)
        return 1
    problems = [
        p
        for spec in fixtures_of(compiled.case)
        if spec.positive
        for p in check_fixture(spec, roots).problems
    ]
    for p in problems:
        print(f"note: {p}", file=sys.stderr)
    print(
        "next: write the TODOs, add a near-miss negative fixture, then `kb check` and "
        f"`kb test {case_id}`"
    )
    return 1 if problems else 0
