"""The two shapes of evidence source: line sources (fed matched lines in one shared pass) and
whole-file sources (parse a small file whole: pip freeze, nvidia-smi, env dumps...)."""

from __future__ import annotations

from typing import ClassVar

from kb.evidence.context import FileContext, Line


class Source:
    """A kind of evidence. `sniff` scores how sure we are a file is of this kind (0 = not)."""

    name: ClassVar[str] = ""
    whole_file: ClassVar[bool] = False
    description: ClassVar[str] = ""

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        return 0.0


class LineSource(Source):
    """Declares the line regexes it cares about; gets only the lines that matched them.

    `patterns` maps a key (local to the source) to (regex, ignore_case). Regexes must stay
    within the RE2/hyperscan subset (no backreferences or lookaround) and should be unanchored
    stable substrings, since launchers prefix lines.
    """

    patterns: ClassVar[dict[str, tuple[str, bool]]] = {}
    raw_keys: ClassVar[frozenset[str]] = frozenset()  # keys whose lines go through `skip` first
    # keys whose lines `on_line` only flags as suspicious (nothing else): once the first half
    # of a file's suspicious lines is in, the reader keeps such lines as bytes (see
    # `SuspiciousLines.raw`), so most are never decoded
    suspicious_keys: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx

    def skip(self, key: str, no: int, raw: bytes) -> bool:
        """True when a line (number `no`) of a `raw_keys` key needs nothing more: it is useless,
        or the source recorded it from its bytes alone. Decoding and attributing a line is
        most of its cost, and these keys match many lines (repeats, one per collective)."""
        return False

    def on_line(self, key: str, line: Line) -> None:
        raise NotImplementedError

    def on_lines(self, key: str, lines: list[Line]) -> None:
        """Several lines of one key, in file order (a source may keep only what it needs)."""
        for line in lines:
            self.on_line(key, line)

    def finish(self) -> None:
        """Called once after the file's last line."""


class WholeFileSource(Source):
    """Parses the whole (bounded) text of a small file."""

    whole_file = True

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx

    def parse(self, text: str) -> None:
        raise NotImplementedError


def count_lines(head: str, needle: str) -> int:
    return head.count(needle)
