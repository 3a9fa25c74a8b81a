"""Module-level regexes compiled on first use, not at import.

Importing the evidence readers and the report compiled ~150 module-level patterns with
`re.compile` (about 30 ms of a warm `kb diagnose`), many for sources the evidence at hand
never needs. `lazy(pattern, flags)` stands in for `re.compile(pattern, flags)` at module
level. The first attribute asked of it (`.search`, `.sub`, `.pattern`, ...) compiles the
pattern, a str one through `dsl.regex_cache` (its code kept per machine; the object equals
`re.compile`'s), and keeps that attribute on the stand-in, so later calls cost no more than
on the pattern itself. Hand it only to code that calls the pattern's own methods:
`re.sub(LAZY, ...)` or `isinstance(LAZY, re.Pattern)` would see the stand-in.
"""

from __future__ import annotations

import re
from typing import Any, overload


class LazyPattern:
    """A regex's text and flags; compiled when first used."""

    def __init__(self, pattern: str | bytes, flags: int = 0) -> None:
        self._text = pattern
        self._flags = flags

    def compiled(self) -> re.Pattern[Any]:
        """The pattern, compiled the first time it is asked for."""
        found: re.Pattern[Any] | None = self.__dict__.get("_compiled")
        if found is None:
            if isinstance(self._text, str):
                from dsl import regex_cache

                found = regex_cache.compile(self._text, self._flags)
            else:  # the store keeps str patterns only
                found = re.compile(self._text, self._flags)
            self._compiled = found
        return found

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # copy, pickle and our own fields: no compile
            raise AttributeError(name)
        value = getattr(self.compiled(), name)
        setattr(self, name, value)  # found in the instance from now on
        return value

    def __reduce__(self) -> tuple[Any, ...]:  # a copy or a worker's copy starts uncompiled
        return (LazyPattern, (self._text, self._flags))

    def __repr__(self) -> str:
        return f"lazy({self._text!r}, {self._flags!r})"


@overload
def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]: ...
@overload
def lazy(pattern: bytes, flags: int = 0) -> re.Pattern[bytes]: ...
def lazy(pattern: str | bytes, flags: int = 0) -> Any:
    """`re.compile(pattern, flags)`, compiled on first use (see the module's docstring)."""
    return LazyPattern(pattern, flags)
