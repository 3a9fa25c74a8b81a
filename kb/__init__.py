"""The runtime: read evidence, run compiled checkers, report verdicts, and the `kb` CLI."""

from dsl import runtime as _language_runtime

__version__ = "0.1.0"


def _validate_regex(pattern: str, ignore_case: bool, scanned: bool = True) -> str | None:
    from kb.scan.regexes import validate_regex

    return validate_regex(pattern, ignore_case, scanned)


def _source_names() -> list[str]:
    from kb.evidence.registry import SOURCES

    return list(SOURCES)


def _line_matches(pattern: str, ignore_case: bool, line: str) -> bool:
    from kb.scan.regexes import line_regex

    return line_regex(pattern, ignore_case).search(line.encode()) is not None


_language_runtime.install(
    regex_checker=_validate_regex, source_names=_source_names, line_matcher=_line_matches
)
