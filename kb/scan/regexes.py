"""Single regexes: can this one be a log query, and its RE2 program (one cache) to search a
line or a text with. The multi-pattern scan of whole files is `kb.scan.engine`."""

from __future__ import annotations

import functools
from typing import Any

import re2

from kb.scan import _re2, syntax

try:
    from kb.scan import _hyperscan
except ImportError:  # no wheel for this platform: RE2 fallback
    _hyperscan = None  # type: ignore[assignment]


@functools.lru_cache(maxsize=4096)
def validate_regex(regex: str, ignore_case: bool = False, scanned: bool = True) -> str | None:
    """Why `regex` cannot be a log query, or None when every engine accepts it (cached: a
    hyperscan compile costs ~8 ms, and `kb check` and the fuzzer see the same pattern often).

    `scanned=False`: the pattern is only ever run by RE2 (a query of the user's notes, a
    device model, a stack frame), so hyperscan's compile is not asked: it is most of a cold
    start's cost and says nothing about such a pattern."""
    if not regex:
        return "empty pattern"
    construct = syntax.backtracking_construct(regex)
    if construct:
        return f"needs a backtracking regex engine: {construct} is not supported"
    unicode = syntax.unicode_construct(regex)
    if unicode:
        return (
            f"{unicode} needs Unicode-aware matching, but logs are matched as bytes: write "
            "the characters as an alternation (`(错误|失败)`), or `[\\x80-\\xff]+` for any "
            "non-ASCII text"
        )
    anchor = syntax.buffer_anchor(regex)
    if anchor:
        return f"{anchor} anchors at the edge of a scanned chunk, not a line: use ^ or $"
    repetition = syntax.repetition_problem(regex)
    if repetition:
        return f"{repetition}: it would compile slowly; use `+` or `*`, or a shorter count"
    literal = syntax.literal_problem(regex)
    if literal:
        return f"{literal}: it would compile slowly; match a distinctive part of it"
    expr = syntax.crlf_dollar(regex).encode()
    error = _re2.compile_error(expr, _re2.FLAG_MULTILINE | (_re2.FLAG_CASELESS * ignore_case))
    if error is None and scanned and _hyperscan is not None:
        flags = _hyperscan.FLAG_MULTILINE | (_hyperscan.FLAG_CASELESS * ignore_case)
        error = _hyperscan.compile_error(expr, flags)
    if error is not None:
        return error.decode("utf-8", "replace") if isinstance(error, bytes) else error
    if line_regex(regex, ignore_case).search(b"") is not None:
        return "matches the empty string, so it would match every line"
    return None


@functools.lru_cache(maxsize=4096)
def _program(regex: str, ignore_case: bool, text: bool) -> Any:
    """The one cache of RE2 programs: over one line's bytes (LATIN1, a byte is a character,
    as hyperscan sees it; no newline inside, so no multiline flag needed) or, with `text`,
    over decoded text (UTF-8: device names, frames, variable values the matcher compares)."""
    if not text:
        return re2.compile(regex.encode(), _re2.options(ignore_case))
    options = re2.Options()
    options.case_sensitive = not ignore_case
    options.log_errors = False
    return re2.compile(regex, options)


def line_regex(regex: str, ignore_case: bool) -> Any:
    """RE2 program for one line's bytes."""
    return _program(regex, ignore_case, False)


def text_regex(regex: str, ignore_case: bool) -> Any:
    """RE2 program for decoded text (raises re2.error when RE2 refuses the pattern)."""
    return _program(regex, ignore_case, True)


def extract(regex: str, line: bytes | str, *, ignore_case: bool = False) -> dict[str, str] | None:
    """Named and numbered captures of the first match in `line` (RE2: linear time), or None.

    Meant for lines `scan_stream` already reported: capture extraction is the slow part of a regex
    engine, so it is never run on every line. Groups that did not take part are left out.
    """
    data = line.encode() if isinstance(line, str) else line
    m = line_regex(regex, ignore_case).search(data)
    if m is None:
        return None
    out: dict[str, str] = {}
    for i, value in enumerate(m.groups(), start=1):
        if value is not None:
            out[str(i)] = value.decode("utf-8", "replace")
    for name, value in m.groupdict().items():
        if value is not None:
            out[name.decode() if isinstance(name, bytes) else name] = value.decode(
                "utf-8", "replace"
            )
    return out
