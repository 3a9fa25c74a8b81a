"""Brace pairing over lexer tokens, to say *which* `{` lacks its `}` or which `}` is extra.

An LALR parser only notices a missing `}` at the end of the file and an extra one
where the case closes early; both places are far from the mistake. Authors indent
blocks, so a `}` whose column disagrees with the line that opened its block points at
the real culprit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lark import Token


@dataclass(frozen=True)
class Pair:
    opener: Token
    closer: Token | None  # None: never closed before the tokens ran out


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


class Braces:
    """Pairs every `{` with its `}` in a token stream over `text`."""

    def __init__(self, tokens: Iterable[Token], text: str) -> None:
        self.lines = text.split("\n")
        self.tokens = list(tokens)
        self.pairs: list[Pair] = []
        self.extra: list[Token] = []  # `}` with nothing open
        stack: list[Token] = []
        for tok in self.tokens:
            if tok.type == "LBRACE":
                stack.append(tok)
            elif tok.type == "RBRACE":
                if stack:
                    self.pairs.append(Pair(stack.pop(), tok))
                else:
                    self.extra.append(tok)
        self.unclosed = [Pair(tok, None) for tok in stack]

    def line_of(self, tok: Token) -> str:
        line = tok.line or 0
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""

    def first_on_line(self, tok: Token) -> bool:
        return not self.line_of(tok)[: (tok.column or 1) - 1].strip()

    def last_on_line(self, tok: Token) -> bool:
        rest = self.line_of(tok)[tok.column or 1 :]
        return not rest.split("#", 1)[0].strip()

    def misaligned(self, pair: Pair) -> bool:
        """A `}` alone at the start of its line, not under the line that opened its block."""
        closer = pair.closer
        if closer is None or not self.first_on_line(closer):
            return False
        return _indent(self.line_of(closer)) != _indent(self.line_of(pair.opener))

    def missing_closer(self) -> Token | None:
        """The `{` most likely missing its `}` when the file ended with blocks open."""
        if not self.unclosed:
            return None
        shifted = [
            p
            for p in self.pairs
            if p.closer is not None
            and self.misaligned(p)
            and _indent(self.line_of(p.closer)) < _indent(self.line_of(p.opener))
        ]
        if shifted:
            return min(shifted, key=lambda p: p.closer.start_pos or 0 if p.closer else 0).opener
        return self.unclosed[-1].opener

    def extra_closer(self, before: int) -> Token | None:
        """The `}` most likely one too many, among those before offset `before`."""
        closers = [
            p for p in self.pairs if p.closer is not None and (p.closer.start_pos or 0) < before
        ]
        for p in sorted(closers, key=lambda p: p.closer.start_pos or 0 if p.closer else 0):
            assert p.closer is not None
            if (
                not self.first_on_line(p.closer)
                and self.last_on_line(p.closer)
                and p.closer.line != p.opener.line
            ):
                return p.closer
        for p in sorted(closers, key=lambda p: p.closer.start_pos or 0 if p.closer else 0):
            if self.misaligned(p):
                return p.closer
        return self.extra[0] if self.extra else None

    def opener_text(self, tok: Token) -> str:
        """The opening line up to its `{`, for messages: `evidence p2p: log {`."""
        line = self.line_of(tok)
        text = line[: tok.column or len(line)].strip()
        return text if len(text) <= 60 else "…" + text[-59:]
