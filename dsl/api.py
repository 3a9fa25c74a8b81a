"""The public surface of the case language: find, parse, lower and validate case files.

Everything that reads cases (the CLI, the compiler, the site hook, the pytest plugin)
goes through `load_cases`, so they all see the same cases and the same errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dsl import model as m
from dsl.casefiles import CASE_FILE as CASE_FILE
from dsl.casefiles import DEFAULT_CASES as DEFAULT_CASES
from dsl.casefiles import MAX_CASE_BYTES as MAX_CASE_BYTES
from dsl.casefiles import case_paths_from_env as case_paths_from_env
from dsl.casefiles import find_case_files as find_case_files
from dsl.diagnostics import Diagnostic, has_errors
from dsl.validate import validate_cases


@dataclass
class LoadResult:
    cases: list[m.Case] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)  # path -> text, for carets
    files: list[Path] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)


def display_path(path: Path) -> str:
    """How diagnostics name a file: relative to the working folder when it is inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def parse_case_file(path: Path) -> tuple[m.Case | None, list[Diagnostic], str | None]:
    """Read, parse and lower one file; never raises for bad input."""
    shown = display_path(path)
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_CASE_BYTES + 1)
        if len(data) > MAX_CASE_BYTES:
            return (
                None,
                [
                    Diagnostic(
                        path=shown,
                        message=f"larger than {MAX_CASE_BYTES:,} bytes: not read",
                        code="io",
                    )
                ],
                None,
            )
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = err.object[: err.start].count(b"\n") + 1
        column = err.start - (err.object.rfind(b"\n", 0, err.start) + 1) + 1
        return (
            None,
            [
                Diagnostic(
                    path=shown,
                    line=line,
                    column=column,
                    code="io",
                    message=f"not UTF-8 text: {err.reason} at byte {err.start}",
                )
            ],
            None,
        )
    except OSError as err:
        return (
            None,
            [Diagnostic(path=shown, message=f"cannot read: {err.strerror}", code="io")],
            None,
        )
    from dsl.lower import lower  # the syntax tree only when a file is parsed
    from dsl.parser import CaseSyntaxError, parse_text  # Lark only when a file is parsed

    try:
        syntax = parse_text(text, shown)
        folder = str(path.resolve().parent) if path.name == CASE_FILE else ""
        case, problems = lower(syntax, folder)
    except CaseSyntaxError as err:
        return None, [err.diagnostic], text
    except Exception as exc:
        return (
            None,
            [
                Diagnostic(
                    path=shown,
                    line=1,
                    column=1,
                    code="internal",
                    message=f"internal error reading this case: "
                    f"{type(exc).__name__}: {str(exc)[:200]} (please report it)",
                )
            ],
            text,
        )
    return case, problems, text


def known_case_ids() -> set[str]:
    """Ids of the bundled and KB_CASES cases, from folder names (nothing is parsed)."""
    ids: set[str] = set()
    for root in [DEFAULT_CASES, *case_paths_from_env()]:
        if root.is_dir():
            ids.update(p.parent.name for p in root.glob(f"*/{CASE_FILE}"))
    return ids


def load_cases(paths: Sequence[Path | str] | None = None, *, with_env: bool = True) -> LoadResult:
    """Load and check every case under `paths` (default: the bundled `cases/`) plus KB_CASES."""
    roots: list[Path | str] = list(paths) if paths else [DEFAULT_CASES]
    if with_env:
        roots += case_paths_from_env()
    files, problems = find_case_files(roots)
    result = LoadResult(diagnostics=problems, files=files)
    for path in files:
        case, diagnostics, text = parse_case_file(path)
        result.diagnostics.extend(diagnostics)
        if text is not None:
            result.sources[display_path(path)] = text
        if case is not None:
            result.cases.append(case)
    result.diagnostics.extend(validate_cases(result.cases, known_case_ids()))
    result.diagnostics.sort(key=lambda d: (d.path, d.line, d.column))
    return result
