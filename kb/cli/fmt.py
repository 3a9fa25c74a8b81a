"""`kb fmt [--check] [--diff] [PATH…]`: rewrite case files in the canonical layout.

Files are replaced atomically (temp file + `os.replace`), so an interrupted run never
leaves half a file. Files that do not parse are reported and left untouched.
Exit 0 when nothing is wrong, 1 when a file would change (`--check`) or cannot be read,
parsed or printed, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from kb.cli.options import exit_status

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
EXIT_STATUS = exit_status(
    (EXIT_OK, "every file is (now) in the canonical layout"),
    (EXIT_PROBLEMS, "a file would change (--check, --diff), or could not be read, parsed or "
     "written"),
    (EXIT_USAGE, "usage error"),
)  # fmt: skip


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "fmt",
        help="format case files",
        description="Rewrite case files in the one canonical layout.",
        epilog=EXIT_STATUS,
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="case files or folders (default: the bundled cases/)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; list files that would change and exit 1 if any",
    )
    parser.add_argument(
        "--diff",
        action="store_true",
        help="write nothing; print a unified diff of the changes (implies --check)",
    )
    parser.set_defaults(func=run)


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` by `text` in one step, keeping its permissions."""
    import tempfile

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _formatted(path: Path) -> tuple[str | None, str | None]:
    """(original, formatted) text; formatted is None after a reported problem."""
    from dsl.catalogue.load import is_catalogue_path
    from dsl.diagnostics import Diagnostic, render
    from dsl.formatter import FormatError, format_declarations, format_text
    from dsl.parser import CaseSyntaxError

    shown = str(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        print(
            render(Diagnostic(path=shown, message=f"cannot read: {err}", code="io"), None),
            file=sys.stderr,
        )
        return None, None
    try:
        if is_catalogue_path(path):
            return text, format_declarations(text, shown)
        return text, format_text(text, shown)
    except (CaseSyntaxError, FormatError) as err:
        print(render(err.diagnostic, text), file=sys.stderr)
        return text, None


def run(args: argparse.Namespace) -> int:
    from dsl.api import DEFAULT_CASES, find_case_files
    from dsl.catalogue.load import catalogue_files, is_catalogue_path
    from dsl.diagnostics import render

    check = args.check or args.diff
    given = args.paths or [DEFAULT_CASES]
    catalogue = [Path(p) for p in given if is_catalogue_path(p)]
    files, problems = find_case_files([p for p in given if not is_catalogue_path(p)])
    files += catalogue_files(catalogue)
    failed = bool(problems)
    for problem in problems:
        print(render(problem, None), file=sys.stderr)
    changed = 0
    for path in files:
        original, new = _formatted(path)
        if new is None:
            failed = True
            continue
        if new == original:
            continue
        changed += 1
        if args.diff:
            import difflib

            sys.stdout.writelines(
                difflib.unified_diff(
                    (original or "").splitlines(keepends=True),
                    new.splitlines(keepends=True),
                    fromfile=f"{path} (original)",
                    tofile=f"{path} (formatted)",
                )
            )
        if check:
            print(f"would reformat {path}")
            continue
        try:
            write_atomic(path, new)
        except OSError as err:
            print(f"{path}: cannot write: {err.strerror}", file=sys.stderr)
            failed = True
            continue
        print(f"reformatted {path}")
    verb = "would be reformatted" if check else "reformatted"
    print(f"{changed} file(s) {verb}, {len(files) - changed} left unchanged", file=sys.stderr)
    return EXIT_PROBLEMS if failed or (check and changed) else EXIT_OK
