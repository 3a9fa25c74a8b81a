"""What checking a case needs from the runtime, handed in rather than imported.

The language is a leaf: it knows neither the scanning engine nor the evidence sources. The
runtime (`kb`, on import) installs a regex checker (can every engine run this pattern in
linear time?) and the names of the evidence sources. Used alone, the language checks regex
flags only and takes any source name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

# (pattern, ignore_case, scanned): `scanned` is False for a pattern only RE2 runs (one that
# never goes into the multi-pattern scan of log files), so checking it costs no scan compile.
RegexChecker = Callable[[str, bool, bool], "str | None"]

# (pattern, ignore_case, line) -> whether the scanner finds the pattern in the line, matching
# its bytes as the scan engines do (so `\b` beside a Chinese character behaves as in a scan).
LineMatcher = Callable[[str, bool, str], bool]

_regex_checker: RegexChecker | None = None
_source_names: Callable[[], Iterable[str]] | None = None
_line_matcher: LineMatcher | None = None


def install(
    *,
    regex_checker: RegexChecker,
    source_names: Callable[[], Iterable[str]],
    line_matcher: LineMatcher | None = None,
) -> None:
    """Called once by the runtime; all are called lazily, so importing stays cheap."""
    global _regex_checker, _source_names, _line_matcher
    _regex_checker, _source_names, _line_matcher = regex_checker, source_names, line_matcher


def scanner_matches(pattern: str, ignore_case: bool, line: str) -> bool | None:
    """Whether the scanner would find `pattern` in `line`, or None when no runtime is installed."""
    return _line_matcher(pattern, ignore_case, line) if _line_matcher is not None else None


def regex_problem(pattern: str, ignore_case: bool, scanned: bool = True) -> str | None:
    """The runtime's reason why `pattern` cannot be a query, or None (also when none is installed)."""
    return _regex_checker(pattern, ignore_case, scanned) if _regex_checker is not None else None


def source_names() -> frozenset[str] | None:
    """The evidence sources a `log` query may name, or None when any name is taken."""
    return frozenset(_source_names()) if _source_names is not None else None
