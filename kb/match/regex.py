"""Linear-time regex search on short strings (device names, frames, env values).

Case patterns come from strangers, so even these small matches use RE2, never `re`.
"""

from __future__ import annotations

from typing import Any, Protocol

import re2

from kb.scan.regexes import text_regex


class TextPattern(Protocol):
    """An RE2 program over text: `search` gives a match with `start()` and `end()`, or None."""

    def search(self, text: str) -> Any: ...


def compiled(pattern: str, ignore_case: bool = False) -> TextPattern | None:
    """The RE2 program for `pattern` over text (one cache: `kb.scan.regexes`), or None when
    RE2 refuses it."""
    try:
        return text_regex(pattern, ignore_case)
    except re2.error:
        return None


def search(pattern: str, text: str, ignore_case: bool = False) -> bool:
    """True when `pattern` occurs in `text`; an uncompilable pattern never matches."""
    program = compiled(pattern, ignore_case)
    return program is not None and program.search(text) is not None
