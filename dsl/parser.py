"""Case text -> syntax tree, or a friendly syntax diagnostic.

The LALR parser is built once per process (grammar cached by lark between processes).
Syntax errors are turned into a `Diagnostic` with words a case author understands:
first the table of known bad snippets (`dsl.syntax_errors`), then a generic
"expected one of" built from terminal descriptions.
"""

from __future__ import annotations

from typing import Any

from lark import Token, Tree
from lark.exceptions import (
    LarkError,
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)

from dsl import syntax as s
from dsl.braces import Braces
from dsl.diagnostics import Diagnostic
from dsl.grammar import case_parser, catalogue_parser
from dsl.span import Span
from dsl.syntax_errors import (
    Finding,
    dangling_operator,
    extra_brace,
    friendly_message,
    no_case,
    second_case,
    tokens_until_error,
    unclosed_block,
    unterminated,
    word_without_value,
)
from dsl.transformer import ToSyntax


class CaseSyntaxError(Exception):
    """Raised by `parse_text`; carries one diagnostic, already in author's words."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


# What each terminal looks like, for "expected one of: ..." messages.
TERMINAL_WORDS: dict[str, str] = {
    "WORD": "a name",
    "STRING": 'a "string"',
    "TEXT_BLOCK": 'a """text block"""',
    "CODE_BLOCK": "a ```code block```",
    "REGEX": "a /regex/",
    "NUMBER": "a number",
    "DATE": "a date (YYYY-MM-DD)",
    "LBRACE": "`{`",
    "RBRACE": "`}`",
    "LSQB": "`[`",
    "RSQB": "`]`",
    "LPAR": "`(`",
    "RPAR": "`)`",
    "COMMA": "`,`",
    "COLON": "`:`",
    "CASE": "`case`",
    "EVIDENCE": "`evidence`",
    "MATCH": "`match`",
    "REQUIRE": "`require`",
    "SUPPORT": "`support`",
    "RULE_OUT": "`rule_out`",
    "LIKELY": "`likely`",
    "POSSIBLE": "`possible`",
    "WEIGHT": "`weight`",
    "AND": "`and`",
    "OR": "`or`",
    "NOT": "`not`",
    "AT_LEAST": "`at_least`",
    "OF": "`of`",
    "$END": "the end of the file",
    "<END-OF-FILE>": "the end of the file",
}


def _comments(text: str) -> list[s.Comment]:
    """Comments are ignored by the grammar; collect them with the same lexer rules."""
    out: list[s.Comment] = []
    lark = case_parser()
    try:
        for tok in lark.lex(text, dont_ignore=True):
            if tok.type == "COMMENT":
                out.append(
                    s.Comment(
                        text=str(tok).rstrip(),
                        span=Span(line=tok.line or 0, column=tok.column or 0),
                    )
                )
    except LarkError:
        pass
    return out


def describe_expected(expected: set[str] | frozenset[str]) -> str:
    words = sorted({TERMINAL_WORDS.get(name, name.lower()) for name in expected})
    if not words:
        return "nothing more"
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def _describe_token(tok: Token) -> str:
    if tok.type == "$END":
        return "the end of the file"
    text = str(tok)
    if "\n" in text:
        text = text.split("\n", 1)[0] + "…"
    return f"`{text[:40]}`"


def _at_end(err: UnexpectedInput) -> bool:
    return isinstance(err, UnexpectedEOF) or (
        isinstance(err, UnexpectedToken) and err.token.type == "$END"
    )


def _targeted(text: str, err: UnexpectedInput) -> Finding | None:
    """A located finding for the mistakes the parser reports far from their cause."""
    if isinstance(err, UnexpectedCharacters):
        return unterminated(text, err)
    tokens = tokens_until_error(text)
    braces = Braces(tokens, text)
    if _at_end(err):
        if not tokens:
            return no_case(text)
        return word_without_value(tokens, len(text) + 1) or unclosed_block(braces)
    if not isinstance(err, UnexpectedToken):
        return None
    pos = err.token.start_pos or 0
    if set(err.accepts or err.expected) <= {"$END", "<END-OF-FILE>"}:  # the case has closed
        if err.token.type == "CASE":
            return second_case(err.token)
        return extra_brace(braces, pos)
    return dangling_operator(tokens, pos) or word_without_value(tokens, pos)


def _generic(text: str, err: UnexpectedInput) -> str:
    if isinstance(err, UnexpectedToken):
        if err.token.type == "$END":
            return f"the file ends too early; expected {describe_expected(err.accepts or err.expected)}"
        seen = _describe_token(err.token)
        return f"unexpected {seen}; expected {describe_expected(err.accepts or err.expected)}"
    if isinstance(err, UnexpectedCharacters):
        pos = err.pos_in_stream or 0
        char = text[pos] if pos < len(text) else ""
        message = f"unexpected character `{char}`"
        if err.allowed:
            message += f"; expected {describe_expected(err.allowed)}"
        return message
    if isinstance(err, UnexpectedEOF):
        return f"the file ends too early; expected {describe_expected(set(err.expected))}"
    return str(err).splitlines()[0]  # pragma: no cover - lark has no other kinds


def _syntax_diagnostic(path: str, text: str, err: UnexpectedInput) -> Diagnostic:
    """Where the author must act, what was seen, and what to do (never raises)."""
    line = getattr(err, "line", 0) or 0
    column = getattr(err, "column", 0) or 0
    if _at_end(err):
        lines = text.split("\n")
        line, column = len(lines), len(lines[-1]) + 1
    try:
        found = _targeted(text, err)
    except Exception:  # a heuristic must never hide the real error
        found = None
    if found is not None:
        return Diagnostic(
            path=path,
            line=found.line,
            column=found.column,
            message=found.message,
            help=found.help,
            code="syntax",
        )
    message = _generic(text, err)
    friendly = friendly_message(err, text)
    return Diagnostic(
        path=path, line=line, column=column, message=message, help=friendly, code="syntax"
    )


# Blocks, lists and conditions nest a few levels in any real case; a bound keeps a stranger's
# thousand nested `not`s or steps from exhausting the recursion of every later pass.
MAX_NESTING = 64


def _too_deep(tree: Tree[Token], path: str) -> Diagnostic | None:
    """The first node nested deeper than MAX_NESTING, as a located error (no recursion)."""
    stack: list[tuple[Tree[Token], int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            meta = node.meta
            line = getattr(meta, "line", 0) if not meta.empty else 0
            column = getattr(meta, "column", 0) if not meta.empty else 0
            return Diagnostic(
                path=path,
                line=line,
                column=column,
                code="too-deep",
                message=f"nested more than {MAX_NESTING} levels deep here",
                help="split the condition or the block into flatter parts",
            )
        stack.extend((c, depth + 1) for c in node.children if isinstance(c, Tree))
    return None


# A real condition names a few dozen queries; a stranger's chain of 10,000 `or`s parses in a
# fraction of a second but then costs every later pass (lowering, lint, matching) seconds.
MAX_CONDITION_TERMS = 2_000
_CLAUSES = frozenset({"require", "support", "rule_out", "likely", "possible"})


def _too_large(tree: Tree[Token], path: str) -> Diagnostic | None:
    """The first clause whose condition holds more than MAX_CONDITION_TERMS terms (names,
    operators, groups), as a located error; one pass, no recursion."""
    stack: list[Tree[Token]] = [tree]
    while stack:
        node = stack.pop()
        if node.data not in _CLAUSES:
            stack.extend(c for c in node.children if isinstance(c, Tree))
            continue
        terms, inner = 0, [node]
        while inner:
            sub = inner.pop()
            terms += 1
            inner.extend(c for c in sub.children if isinstance(c, Tree))
        if terms - 1 > MAX_CONDITION_TERMS:
            meta = node.meta
            return Diagnostic(
                path=path,
                line=0 if meta.empty else getattr(meta, "line", 0),
                column=0 if meta.empty else getattr(meta, "column", 0),
                code="too-large",
                message=f"this `{node.data}` condition has {terms - 1:,} terms; at most "
                f"{MAX_CONDITION_TERMS:,} are allowed",
                help="name the alternatives once in a query (a regex alternation, a list "
                "of values) instead of chaining thousands of terms",
            )
    return None


def _tree(lark: Any, text: str, path: str) -> Tree[Token]:
    """The parse tree, or `CaseSyntaxError` with a located diagnostic (never a lark exception)."""
    try:
        tree: Tree[Token] = lark.parse(text)
    except UnexpectedInput as err:
        raise CaseSyntaxError(_syntax_diagnostic(path, text, err)) from None
    except LarkError as err:  # pragma: no cover - defensive: lark's other errors
        raise CaseSyntaxError(
            Diagnostic(path=path, message=f"cannot parse: {err}", code="syntax")
        ) from None
    bad = _too_deep(tree, path) or _too_large(tree, path)
    if bad is not None:
        raise CaseSyntaxError(bad)
    return tree


def parse_declarations(text: str, path: str = "<string>") -> list[s.BlockNode]:
    """Parse a catalogue file: its declarations, shaped like blocks. Raises `CaseSyntaxError`."""
    blocks: Any = ToSyntax(path).transform(_tree(catalogue_parser(), text, path))
    return list(blocks)  # the `catalogue` rule gives a list


def parse_text(text: str, path: str = "<string>") -> s.CaseFile:
    """Parse one case file. Raises `CaseSyntaxError`, never a lark exception."""
    tree = _tree(case_parser(), text, path)
    try:
        case = ToSyntax(path).transform(tree)
    except VisitError as err:  # pragma: no cover - a bug in the transformer, not the input
        raise CaseSyntaxError(
            Diagnostic(path=path, message=f"internal error: {err.orig_exc}", code="internal")
        ) from None
    comments = [
        c.model_copy(update={"span": c.span.model_copy(update={"path": path})})
        for c in _comments(text)
    ]
    return s.CaseFile(case=case, comments=comments, span=case.span)
