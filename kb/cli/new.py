"""`kb new CASE-ID [--from-evidence PATH]`: start a case folder, blank or drafted from a
real incident's evidence (copied in redacted as the first positive fixture).

Exit 0 when the folder was written, 1 when the draft was written but does not yet pass its
own fixture, 2 on usage errors (bad id, existing folder, missing evidence).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any

from kb.cli.options import STDIN, exit_status
from kb.cli.stdin_file import stdin_as_file

MAX_ID = 100  # a folder name, a page URL and a heading: short
KEBAB = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")  # fullmatch: `$` would let a trailing newline in


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "new",
        help="start a new case folder (optionally drafted from real evidence)",
        description="Create cases/<id>/ with a commented case.kb and fixtures/positive and "
        "fixtures/negative folders. With --from-evidence, copy the evidence in (redacted) as "
        "the first positive fixture and draft evidence queries from its error lines.",
        epilog=exit_status(
            (0, "the case folder was written"),
            (1, "the draft was written but does not yet pass its own fixture"),
            (2, "usage error: a bad id, an existing folder, missing evidence"),
        ),
    )
    p.add_argument("case_id", metavar="CASE-ID", help="kebab-case id, e.g. nccl-ib-retry-exceeded")
    p.add_argument(
        "--from-evidence",
        metavar="PATH",
        type=Path,
        help="an evidence folder, log file or .tar/.tar.gz/.zip archive, or - for stdin",
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
        help="the case folder to create the case in (default: ./cases of the current "
        "folder, made when missing); KB_CASES folders are searched for duplicate ids",
    )
    p.set_defaults(func=run)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.") or "evidence"


def _target_root(args: argparse.Namespace) -> tuple[Path, str | None]:
    """Where the case goes, and a note when that folder had to be made.

    `--cases DIR`, else `./cases` of the current folder, made when missing: a contributor
    starts a pack where they stand (as `cargo new` or `git init` do), and the bundled cases
    inside the installed package are never written to unless they are `./cases` itself
    (a checkout of this project)."""
    if args.cases:
        root = Path(args.cases[0])
        return root, None if root.is_dir() else f"made {root}/"
    local = Path("cases")
    if local.is_dir():
        return local, None
    return local, (
        f"no cases folder here, so made {Path.cwd() / 'cases'}/ "
        "(use it with `kb diagnose --cases cases`, or KB_CASES)"
    )


def _existing(case_id: str, root: Path) -> Path | None:
    from dsl.api import DEFAULT_CASES, case_paths_from_env

    for base in [root, DEFAULT_CASES, *case_paths_from_env()]:
        if (base / case_id).exists():
            return base / case_id
    return None


def _remove(folder: Path) -> None:
    import shutil

    shutil.rmtree(folder, ignore_errors=True)


def _fail(message: str) -> int:
    print(f"kb new: {message}", file=sys.stderr)
    return 2


class Made:
    """What `kb new` wrote, and what it has to say about it once everything is on disk."""

    def __init__(
        self,
        folder: Path,
        out: list[str] | None = None,
        err: list[str] | None = None,
        code: int = 0,
    ) -> None:  # a plain class: `dataclasses` costs `kb --help` 8 ms of imports
        self.folder, self.code = folder, code
        self.out: list[str] = out if out is not None else []
        self.err: list[str] = err if err is not None else []


def run(args: argparse.Namespace) -> int:
    if args.from_evidence is not None and str(args.from_evidence) == STDIN:
        with stdin_as_file("kb new") as piped:  # `-`: the evidence piped in, as a file
            args.from_evidence = piped
            return run(args)
    case_id: str = args.case_id
    if len(case_id) > MAX_ID:
        return _fail(f"case id `{case_id[:40]}…` is {len(case_id)} characters; at most {MAX_ID}")
    if not KEBAB.fullmatch(case_id):
        return _fail(
            f"case id `{case_id}` is not kebab-case: lower-case letters and digits "
            f"joined by `-`, e.g. `{_slug(case_id).replace('.', '-')}`"
        )
    root, root_note = _target_root(args)
    clash = _existing(case_id, root)
    if clash is not None:
        return _fail(f"{clash} already exists; pick another id or edit that case")
    evidence: Path | None = args.from_evidence
    if evidence is not None and not evidence.exists():
        return _fail(f"no such evidence file or folder: {evidence}")
    folder = root / case_id
    try:
        made = _make(args, case_id, folder, evidence)
    except OSError as exc:
        _remove(folder)
        return _fail(f"cannot write {folder}: {exc.strerror or exc}")
    except BaseException as exc:  # never leave a half-made case that blocks the same id
        _remove(folder)
        if not isinstance(exc, Exception):
            raise  # Ctrl-C: the folder is gone, the interrupt goes on
        return _fail(
            f"internal error drafting the case (nothing was kept): {type(exc).__name__}: {exc}"
        )
    if made is None:
        return 2
    # The case is complete on disk: nothing below may remove it (a reader that closed the
    # pipe, `kb new … | head -1`, only loses the rest of the report).
    if root_note:
        made.out.insert(0, root_note)
    if evidence is not None:
        _self_test(case_id, made)
    return _say(made)


def _say(made: Made) -> int:
    try:
        for line in made.out:
            print(line)
        sys.stdout.flush()
        for line in made.err:
            print(line, file=sys.stderr)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)  # so the interpreter's last flush is quiet
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return made.code


def _write_case(path: Path, text: str) -> None:
    """The case text in the layout `kb fmt` gives it, so a fresh case passes `kb fmt --check`."""
    from dsl.formatter import format_text

    path.write_text(format_text(text, str(path)), encoding="utf-8")


def _make(
    args: argparse.Namespace, case_id: str, folder: Path, evidence: Path | None
) -> Made | None:
    """Write the whole case folder; None (after saying why) when there is nothing to draft."""
    for kind in ("positive", "negative"):
        (folder / "fixtures" / kind).mkdir(parents=True)
        (folder / "fixtures" / kind / ".gitkeep").touch()
    if evidence is None:
        from kb.scaffold.draft import blank_case

        _write_case(folder / "case.kb", blank_case(case_id))
        return Made(
            folder,
            out=[
                f"created {folder}/case.kb and empty fixtures/positive/, fixtures/negative/",
                "next: add evidence folders, write the TODOs, then `kb check` and "
                f"`kb test {case_id}` (see CONTRIBUTING.md)",
            ],
        )
    return _draft(args, case_id, folder, evidence)


def _draft(args: argparse.Namespace, case_id: str, folder: Path, evidence: Path) -> Made | None:
    from kb.scaffold.draft import draft_from_fixture
    from kb.scaffold.evidence_copy import copy_redacted

    name = _slug(args.fixture_name or evidence.name.split(".tar")[0].removesuffix(".zip"))
    fixture = folder / "fixtures" / "positive" / name
    report = copy_redacted(evidence, fixture)
    fixture = folder / "fixtures" / "positive" / report.redactor.redact_path(name)
    if fixture.name != name:
        (folder / "fixtures" / "positive" / name).rename(fixture)
    if not report.written:
        _remove(folder)
        _fail(
            f"no readable text files in {evidence}"
            + "".join(f"\n  skipped {s}" for s in report.skipped)
        )
        return None
    text, queries = draft_from_fixture(
        case_id, str(fixture), report.written, source=f"fixtures/positive/{fixture.name}"
    )
    _write_case(folder / "case.kb", text)
    r = report.redactor
    made = Made(folder)
    made.out.append(f"created {folder}/case.kb")
    made.out.append(
        f"copied {len(report.written)} file(s) ({report.size // 1024} KB) to "
        f"fixtures/positive/{fixture.name}/, redacted: {len(set(r.hosts.values()))} host(s), "
        f"{len(r.ipv4) + len(r.ipv6)} address(es), {r.secrets} secret(s)"
    )
    made.out.extend(f"  skipped {s}" for s in report.skipped)
    made.out.append(
        f"drafted {len(queries)} evidence quer{'y' if len(queries) == 1 else 'ies'}: "
        + ", ".join(q.name for q in queries)
    )
    made.out.append("review the copied files for anything else private before committing")
    return made


def _self_test(case_id: str, made: Made) -> None:
    """The draft must match its own evidence; say so now rather than in review. Reading
    only: whatever goes wrong here is reported, and the case stays."""
    from kb.fixtures import check_fixture, default_roots, fixtures_of, knowledge_base_for

    made.out.append(
        "next: write the TODOs (until then `kb check` fails and `kb diagnose` leaves the "
        f"draft out), add a near-miss negative fixture, then `kb test {case_id}`"
    )
    try:
        roots = default_roots(made.folder)
        knowledge_base_for.cache_clear()
        compiled = knowledge_base_for(roots).get(case_id)
        if compiled is None:
            made.err.append("the draft does not compile yet: run `kb check` on it")
            made.code = 1
            return
        problems = [
            p
            for spec in fixtures_of(compiled.case)
            if spec.positive
            for p in check_fixture(spec, roots).problems
        ]
    except Exception as exc:  # a bug of the self-test must not cost the written case
        made.err.append(f"could not test the draft on its fixture: {type(exc).__name__}: {exc}")
        made.code = 1
        return
    made.err.extend(f"note: {p}" for p in problems)
    made.code = 1 if problems else 0
