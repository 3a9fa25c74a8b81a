"""Syntax tree -> canonical case text (`kb fmt`).

One layout for every case so diffs show content, not style: 2-space indent, one
statement per line, a blank line between the case's top-level blocks, short lists on
one line, long ones one item per line with a trailing comma. Statement order is the
author's: the formatter never reorders, because the order of steps, options, clauses
and fixtures carries meaning and a reorder would make every first format a huge diff.

Comments are not in the tree, so they are re-attached by position: a comment on its
own line leads the next statement of its block (or stays at the block's end before
`}`); a comment after code on the same line trails the statement that ends there.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from dsl import syntax as s
from dsl.diagnostics import Diagnostic
from dsl.span import Span
from dsl.transformer import dedent_block

INDENT = "  "
WIDTH = 100


class FormatError(Exception):
    """The tree holds something no case text can spell (e.g. ``` inside a code block)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


# ---------------------------------------------------------------- comments
Statement = s.AttributeNode | s.BlockNode | s.EvidenceNode | s.MatchNode | s.ClauseNode
Container = s.CaseNode | s.BlockNode | s.EvidenceNode | s.MatchNode


@dataclass
class Notes:
    """Comments attached to one statement or block."""

    leading: list[str] = field(default_factory=list)
    open: list[str] = field(default_factory=list)  # after `{` of a block
    trailing: list[str] = field(default_factory=list)  # after the statement's last token
    end: list[str] = field(default_factory=list)  # before a block's closing `}`


def _children(node: Container) -> list[Statement]:
    if isinstance(node, s.MatchNode):
        return list(node.clauses)
    return list(node.items)


def _is_container(node: object) -> bool:
    return isinstance(node, s.CaseNode | s.BlockNode | s.EvidenceNode | s.MatchNode)


def _walk(
    node: s.CaseNode | Statement, depth: int = 0
) -> Iterator[tuple[Statement | s.CaseNode, int]]:
    yield node, depth
    if _is_container(node):
        for child in _children(node):  # type: ignore[arg-type]
            yield from _walk(child, depth + 1)


def _value_spans(node: object) -> Iterator[Span]:
    """Spans of every value and expression inside a statement (not nested statements)."""
    if isinstance(node, s.ListValue):
        yield node.span
        for item in node.items:
            yield from _value_spans(item)
    elif isinstance(node, s.Node) and not _is_container(node):
        yield node.span
        for name in type(node).model_fields:
            child = getattr(node, name)
            for part in child if isinstance(child, list) else [child]:
                if isinstance(part, s.Node) and not isinstance(part, s.CaseNode):
                    yield from _value_spans(part)


class CommentMap:
    """Where each comment of a file goes, keyed by statement identity."""

    def __init__(self, file: s.CaseFile) -> None:
        self.notes: dict[int, Notes] = {}
        self.header: list[str] = []
        self.footer: list[str] = []
        self._nodes = list(_walk(file.case))
        self._code: list[Span] = [n.span for n, _ in self._nodes]
        for n, _ in self._nodes:
            if not _is_container(n):
                self._code.extend(_value_spans(n))
        for comment in sorted(file.comments, key=lambda c: (c.span.line, c.span.column)):
            self._place(file.case, comment)

    def of(self, node: object) -> Notes:
        return self.notes.setdefault(id(node), Notes())

    def _after_code(self, line: int, column: int) -> bool:
        return any(
            (sp.line == line and 0 < sp.column < column)
            or (sp.end_line == line and 0 < sp.end_column <= column)
            for sp in self._code
        )

    def _place(self, case: s.CaseNode, comment: s.Comment) -> None:
        line, col = comment.span.line, comment.span.column
        pos = (line, col)
        text = comment.text.rstrip()
        if not case.span.line or pos < (case.span.line, case.span.column):
            self.header.append(text)
            return
        if pos > (case.span.end_line, case.span.end_column):
            self.footer.append(text)
            return
        if self._after_code(line, col):
            self._place_trailing(pos, text)
        else:
            self._place_leading(case, pos, text)

    def _place_trailing(self, pos: tuple[int, int], text: str) -> None:
        line = pos[0]
        ending = [
            n
            for n, _ in self._nodes
            if n.span.end_line == line and (n.span.end_line, n.span.end_column) <= pos
        ]
        if ending:
            last = max(ending, key=lambda n: n.span.end_column)
            self.of(last).trailing.append(text)
            return
        inside = [(n, d) for n, d in self._nodes if _contains(n.span, pos)]
        node, _ = max(inside, key=lambda nd: nd[1])
        if _is_container(node):
            self.of(node).open.append(text)
        else:
            self.of(node).trailing.append(text)

    def _place_leading(self, case: s.CaseNode, pos: tuple[int, int], text: str) -> None:
        inside = [(n, d) for n, d in self._nodes if _contains(n.span, pos)]
        node, _ = max(inside, key=lambda nd: nd[1]) if inside else (case, 0)
        if not _is_container(node):  # e.g. inside a multi-line list: lead the statement
            self.of(node).leading.append(text)
            return
        for child in _children(node):  # type: ignore[arg-type]
            if (child.span.line, child.span.column) > pos:
                self.of(child).leading.append(text)
                return
        self.of(node).end.append(text)


def _contains(span: Span, pos: tuple[int, int]) -> bool:
    return (span.line, span.column) < pos < (span.end_line, span.end_column)


# ---------------------------------------------------------------- values
def format_string(value: str) -> str:
    """A one-line string with canonical JSON escapes (what the transformer decodes)."""
    return json.dumps(value, ensure_ascii=False)


def _text_block(value: str, indent: int) -> str | None:
    """The text block spelling of `value`, or None when no text block reads back as it."""
    if '"""' in value:
        return None
    inner = INDENT * (indent + 1)
    body = "\n".join(inner + line if line else "" for line in value.split("\n"))
    raw = f"\n{body}\n{INDENT * indent}"
    if dedent_block(raw) != value:
        return None
    return f'"""{raw}"""'


class Printer:
    """Prints one case file; `out` collects finished lines."""

    def __init__(self, file: s.CaseFile) -> None:
        self.file = file
        self.comments = CommentMap(file)
        self.out: list[str] = []

    def fail(self, span: Span, message: str) -> FormatError:
        return FormatError(
            Diagnostic.at(
                span.model_copy(update={"path": self.file.span.path or span.path}),
                message,
                code="format",
            )
        )

    def value(self, v: s.Value, indent: int, used: int) -> str:
        """`v` as text; `used` is how many columns the line already holds before it."""
        if isinstance(v, s.StringValue):
            return format_string(v.value)
        if isinstance(v, s.TextBlockValue):
            return _text_block(v.value, indent) or format_string(v.value)
        if isinstance(v, s.CodeBlockValue):
            return self.code(v, indent)
        if isinstance(v, s.RegexValue):
            return f"/{v.pattern}/{v.flags}"
        if isinstance(v, s.NumberValue):
            return v.raw
        if isinstance(v, s.DateValue | s.WordValue):
            return v.value
        return self.list(v, indent, used)

    def code(self, v: s.CodeBlockValue, indent: int) -> str:
        pad = INDENT * indent
        if "```" in v.code:
            raise self.fail(
                v.span, "this code block contains ``` and cannot be written as a ```code block```"
            )
        body = "".join(f"{pad}{line}\n" if line else "\n" for line in v.code.split("\n"))
        if not v.code:
            body = ""
        raw = f"{body}{pad}"
        if dedent_block(raw) != v.code:
            raise self.fail(v.span, "this code block's indentation cannot be written back")
        return f"```{v.language}\n{raw}```"

    def list(self, v: s.ListValue, indent: int, used: int) -> str:
        items = [self.value(item, indent + 1, 0) for item in v.items]
        inline = "[" + ", ".join(items) + "]"
        if "\n" not in inline and used + len(inline) <= WIDTH:
            return inline
        pad = INDENT * (indent + 1)
        return "[\n" + "".join(f"{pad}{item},\n" for item in items) + INDENT * indent + "]"

    def expr(self, e: s.Expr, parent: type | None = None) -> str:
        if isinstance(e, s.RefExpr):
            return e.name
        if isinstance(e, s.AtLeastExpr):
            inner = ", ".join(self.expr(o) for o in e.operands)
            return f"at_least {e.count.raw} of ({inner})"
        if isinstance(e, s.NotExpr):
            return "not " + self.expr(e.operand, s.NotExpr)
        joiner = " and " if isinstance(e, s.AndExpr) else " or "
        if len(e.operands) == 1:
            return self.expr(e.operands[0], parent)
        text = joiner.join(self.expr(o, type(e)) for o in e.operands)
        # `and` binds tighter than `or`; nesting the same operator needs parentheses too,
        # or `a or (b or c)` would read back as one flat `or`.
        needs = parent is not None
        return f"({text})" if needs else text

    # ------------------------------------------------------------ statements
    def emit(self, indent: int, text: str, notes: Notes | None = None) -> None:
        if notes and notes.trailing:
            text += "  " + " ".join(notes.trailing)
        self.out.append(INDENT * indent + text)

    def leading(self, notes: Notes, indent: int) -> None:
        for c in notes.leading:
            self.out.append(INDENT * indent + c)

    def statement(self, node: Statement, indent: int) -> None:
        notes = self.comments.of(node)
        self.leading(notes, indent)
        pad = len(INDENT * indent)
        if isinstance(node, s.AttributeNode):
            head = f"{node.name} "
            self.emit(indent, head + self.value(node.value, indent, pad + len(head)), notes)
        elif isinstance(node, s.ClauseNode):
            weight = f" weight {node.weight.raw}" if node.weight is not None else ""
            self.emit(indent, f"{node.role} {self.expr(node.expr)}{weight}", notes)
        elif isinstance(node, s.BlockNode):
            head = node.name
            if node.label is not None:
                head += " " + self.value(node.label, indent, pad + len(head) + 1)
            self.block(head, node, indent)
        elif isinstance(node, s.EvidenceNode):
            self.block(f"evidence {node.name}: {node.kind}", node, indent)
        else:
            self.block("match", node, indent)

    def block(self, head: str, node: Container, indent: int, top: bool = False) -> None:
        notes = self.comments.of(node)
        children = _children(node)
        if not children and not notes.open and not notes.end:
            self.emit(indent, head + " {}", notes)
            return
        opener = head + " {" + ("  " + " ".join(notes.open) if notes.open else "")
        self.out.append(INDENT * indent + opener)
        previous: Statement | None = None
        for child in children:
            if (
                top
                and previous is not None
                and (
                    not isinstance(child, s.AttributeNode)
                    or not isinstance(previous, s.AttributeNode)
                )
            ):
                self.out.append("")
            self.statement(child, indent + 1)
            previous = child
        if notes.end and top and children:
            self.out.append("")
        for c in notes.end:
            self.out.append(INDENT * (indent + 1) + c)
        self.emit(indent, "}", notes)

    def case(self) -> str:
        for c in self.comments.header:
            self.out.append(c)
        case = self.file.case
        self.block(f"case {case.id}", case, 0, top=True)
        self.out.extend(self.comments.footer)
        return "\n".join(self.out) + "\n"


def format_file(file: s.CaseFile) -> str:
    """The canonical text of a parsed case file. Raises `FormatError` if unprintable."""
    return Printer(file).case()


def format_text(text: str, path: str = "<string>") -> str:
    """Parse and print; raises `CaseSyntaxError` or `FormatError` with a diagnostic."""
    from dsl.parser import parse_text

    return format_file(parse_text(text, path))


class DeclarationPrinter(Printer):
    """Prints a catalogue file: its declarations at the top level, a blank line between."""

    def declarations(self) -> str:
        for c in self.comments.header:
            self.out.append(c)
        whole = self.file.case
        for i, block in enumerate(whole.items):
            if i:
                self.out.append("")
            self.statement(block, 0)
        self.out.extend(self.comments.of(whole).end)
        self.out.extend(self.comments.footer)
        return "\n".join(self.out).lstrip("\n") + "\n"


def format_declarations(text: str, path: str = "<string>") -> str:
    """A catalogue file's canonical text (the same layout as a case's blocks).

    The declarations are held in a stand-in case spanning the whole file, so comments find
    their statements exactly as in a case. Raises `CaseSyntaxError` or `FormatError`."""
    from dsl.parser import _comments, parse_declarations

    blocks = parse_declarations(text, path)
    lines = text.split("\n")
    whole = s.CaseNode(
        id="",
        items=list(blocks),
        span=Span(path=path, line=1, column=1, end_line=len(lines) + 1, end_column=1),
    )
    comments = [
        c.model_copy(update={"span": c.span.model_copy(update={"path": path})})
        for c in _comments(text)
    ]
    file = s.CaseFile(case=whole, comments=comments, span=whole.span)
    return DeclarationPrinter(file).declarations()
