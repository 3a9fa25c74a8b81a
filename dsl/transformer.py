"""Lark parse tree -> `dsl.syntax` nodes: one method per grammar alias."""

from __future__ import annotations

import textwrap
from typing import Any

from lark import Token, Transformer, v_args
from lark.tree import Meta

from dsl import syntax as s
from dsl.span import Span


def dedent_block(body: str) -> str:
    """Drop the common indentation and the blank first/last lines of a block body."""
    lines = body.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return textwrap.dedent("\n".join(line.rstrip() for line in lines))


_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def unescape_string(raw: str) -> str:
    """Decode a "..." literal with JSON escapes, one escape at a time: an unknown escape
    such as the `\\d` in "C:\\dir" stays as written instead of spoiling the whole string.

    >>> unescape_string('"a\\\\ud83d\\\\ude00 \\\\ud800 b"')
    'a😀 � b'
    """
    body = raw[1:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char != "\\" or i + 1 == len(body):
            out.append(char)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt == "u" and len(body) >= i + 6:
            try:
                out.append(chr(int(body[i + 2 : i + 6], 16)))
                i += 6
            except ValueError:
                out.append(char)
                i += 1
        else:
            out.append(char)
            i += 1
    # `\ud83d\ude00` is one character, as in JSON; a lone surrogate cannot be printed or
    # written as UTF-8 (it crashed `kb diagnose` and `kb fmt`), so it becomes U+FFFD
    return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16", "replace")


class ToSyntax(Transformer[Token, s.CaseFile]):
    """Builds typed syntax nodes carrying spans in the given file."""

    def __init__(self, path: str) -> None:
        super().__init__(visit_tokens=True)
        self.path = path

    # -- helpers ------------------------------------------------------------------------
    def _span_tok(self, tok: Token) -> Span:
        return Span(
            path=self.path,
            line=tok.line or 0,
            column=tok.column or 0,
            end_line=tok.end_line or tok.line or 0,
            end_column=tok.end_column or tok.column or 0,
        )

    def _span_meta(self, meta: Meta) -> Span:
        if getattr(meta, "empty", True):
            return Span(path=self.path)
        return Span(
            path=self.path,
            line=meta.line,
            column=meta.column,
            end_line=meta.end_line,
            end_column=meta.end_column,
        )

    # -- values -------------------------------------------------------------------------
    def string(self, children: list[Token]) -> s.StringValue:
        tok = children[0]
        return s.StringValue(value=unescape_string(str(tok)), span=self._span_tok(tok))

    def text_block(self, children: list[Token]) -> s.TextBlockValue:
        tok = children[0]
        return s.TextBlockValue(value=dedent_block(str(tok)[3:-3]), span=self._span_tok(tok))

    def code_block(self, children: list[Token]) -> s.CodeBlockValue:
        tok = children[0]
        raw = str(tok)[3:-3]
        header, _, body = raw.partition("\n")
        return s.CodeBlockValue(
            language=header.strip(), code=dedent_block(body), span=self._span_tok(tok)
        )

    def regex(self, children: list[Token]) -> s.RegexValue:
        tok = children[0]
        raw = str(tok)
        end = raw.rindex("/")
        return s.RegexValue(pattern=raw[1:end], flags=raw[end + 1 :], span=self._span_tok(tok))

    def number(self, children: list[Token]) -> s.NumberValue:
        tok = children[0]
        return s.NumberValue(value=float(tok), raw=str(tok), span=self._span_tok(tok))

    def date(self, children: list[Token]) -> s.DateValue:
        tok = children[0]
        return s.DateValue(value=str(tok), span=self._span_tok(tok))

    def word(self, children: list[Token]) -> s.WordValue:
        tok = children[0]
        return s.WordValue(value=str(tok), span=self._span_tok(tok))

    @v_args(meta=True)
    def list_value(self, meta: Meta, children: list[Any]) -> s.ListValue:
        items = [c for c in children if c is not None]
        return s.ListValue(items=items, span=self._span_meta(meta))

    # -- conditions ---------------------------------------------------------------------
    def ref(self, children: list[Token]) -> s.RefExpr:
        tok = children[0]
        return s.RefExpr(name=str(tok), span=self._span_tok(tok))

    @v_args(meta=True)
    def not_expr(self, meta: Meta, children: list[Any]) -> s.NotExpr:
        return s.NotExpr(operand=children[0], span=self._span_meta(meta))

    @v_args(meta=True)
    def and_expr(self, meta: Meta, children: list[Any]) -> s.AndExpr:
        return s.AndExpr(operands=children, span=self._span_meta(meta))

    @v_args(meta=True)
    def or_expr(self, meta: Meta, children: list[Any]) -> s.OrExpr:
        return s.OrExpr(operands=children, span=self._span_meta(meta))

    @v_args(meta=True)
    def at_least(self, meta: Meta, children: list[Any]) -> s.AtLeastExpr:
        count = self.number([children[0]])
        return s.AtLeastExpr(count=count, operands=children[1:], span=self._span_meta(meta))

    def weight(self, children: list[Token]) -> s.NumberValue:
        return self.number(children)

    def _clause(self, role: str, meta: Meta, children: list[Any]) -> s.ClauseNode:
        weight = children[1] if len(children) > 1 else None
        return s.ClauseNode(role=role, expr=children[0], weight=weight, span=self._span_meta(meta))

    @v_args(meta=True)
    def require(self, meta: Meta, children: list[Any]) -> s.ClauseNode:
        return self._clause("require", meta, children)

    @v_args(meta=True)
    def support(self, meta: Meta, children: list[Any]) -> s.ClauseNode:
        return self._clause("support", meta, children)

    @v_args(meta=True)
    def rule_out(self, meta: Meta, children: list[Any]) -> s.ClauseNode:
        return self._clause("rule_out", meta, children)

    @v_args(meta=True)
    def likely(self, meta: Meta, children: list[Any]) -> s.ClauseNode:
        return self._clause("likely", meta, children)

    @v_args(meta=True)
    def possible(self, meta: Meta, children: list[Any]) -> s.ClauseNode:
        return self._clause("possible", meta, children)

    @v_args(meta=True)
    def match(self, meta: Meta, children: list[Any]) -> s.MatchNode:
        return s.MatchNode(clauses=children, span=self._span_meta(meta))

    # -- statements ---------------------------------------------------------------------
    @v_args(meta=True)
    def attribute(self, meta: Meta, children: list[Any]) -> s.AttributeNode:
        name, value = children
        return s.AttributeNode(name=str(name), value=value, span=self._span_meta(meta))

    @v_args(meta=True)
    def block(self, meta: Meta, children: list[Any]) -> s.BlockNode:
        name = children[0]
        rest = children[1:]
        label = None
        if rest and not isinstance(
            rest[0], s.AttributeNode | s.BlockNode | s.EvidenceNode | s.MatchNode
        ):
            label = rest[0]
            rest = rest[1:]
        return s.BlockNode(name=str(name), label=label, items=rest, span=self._span_meta(meta))

    @v_args(meta=True)
    def evidence(self, meta: Meta, children: list[Any]) -> s.EvidenceNode:
        name, kind, *items = children
        return s.EvidenceNode(
            name=str(name), kind=str(kind), items=items, span=self._span_meta(meta)
        )

    @v_args(meta=True)
    def case(self, meta: Meta, children: list[Any]) -> s.CaseNode:
        case_id, *items = children
        return s.CaseNode(id=str(case_id), items=items, span=self._span_meta(meta))

    def catalogue(self, children: list[Any]) -> list[s.BlockNode]:
        return [c for c in children if isinstance(c, s.BlockNode)]

    def start(self, children: list[Any]) -> s.CaseNode:
        node: s.CaseNode = children[0]
        return node
