"""The small values a case holds (prose, patterns, commands), shared by the case model
(`dsl.model`) and every query kind (`dsl.kinds.*`)."""

from __future__ import annotations

from dsl.span import Node


class Text(Node):
    """Prose in English with an optional Chinese translation."""

    en: str
    zh: str | None = None


class Regex(Node):
    """A pattern as written between slashes; flags are the letters after the closing slash."""

    pattern: str
    flags: str = ""

    @property
    def ignore_case(self) -> bool:
        return "i" in self.flags


class CodeBlock(Node):
    """A command or code snippet shown to the user (never executed by the tool)."""

    language: str = "bash"
    code: str
