"""Syntax errors in a case author's words.

Two layers. First, targeted checks for the mistakes that an LALR parser reports far
from their cause: an unclosed block (seen only at the end of the file), an extra `}`
(seen where the case closes early), a word with no value (it swallows the next line's
name, so the parser stops a line later) and unterminated strings, text blocks, code
blocks and regexes (seen as a bad character). Second, like lark's own GRAMMAR_ERRORS,
a table of known bad snippets -> labels, matched by parser state with
`UnexpectedInput.match_examples`; `tests/dsl/test_syntax_errors.py` walks the whole table.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from lark import Token
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput

from dsl.braces import Braces
from dsl.grammar import case_parser

_HEAD = 'case demo-case {\n  title "t"\n'

SYNTAX_ERRORS: dict[str, list[str]] = {
    "a block is not closed: a `}` is missing": [
        _HEAD,
        _HEAD + '  step "x" {\n    why "y"\n',
        _HEAD + "  evidence e: log {\n    pattern /x/\n",
        _HEAD + "  match {\n    require e\n",
    ],
    "a `}` closes nothing: remove it or open a block before it": [
        _HEAD + "}\n}\n",
        _HEAD + "}\n  severity high\n}\n",
        "case demo-case {\n}\n}\n",
    ],
    "a file holds one case, starting with `case <id> {`": [
        'title "t"\n',
        "evidence e: log { }\n",
        _HEAD + "}\ncase other {\n}\n",
        "case demo-case {\n}\ncase other {\n}\n",
    ],
    "the case id is missing after `case`": [
        "case {\n}\n",
        'case "demo" {\n}\n',
    ],
    "an evidence query needs a name and a kind: `evidence NAME: KIND { ... }`": [
        _HEAD + "  evidence {\n",
        _HEAD + "  evidence e {\n",
        _HEAD + "  evidence e: {\n",
        _HEAD + '  evidence "e": log {\n',
        _HEAD + "  evidence e: log\n",
    ],
    "an attribute needs a value: `name value`": [
        _HEAD + "  severity }\n",
        _HEAD + '  step "x" {\n    why }\n',
    ],
    "a condition names evidence queries, joined by `and`, `or`, `not`, `at_least N of (...)`": [
        _HEAD + "  match {\n    require }\n",
        _HEAD + "  match {\n    require a or }\n",
        _HEAD + "  match {\n    require a and }\n",
        _HEAD + "  match {\n    require not }\n",
        _HEAD + '  match {\n    require "a" }\n',
    ],
    "a `(` is not closed: a `)` is missing": [
        _HEAD + "  match {\n    require (a or b\n  }\n",
        _HEAD + "  match {\n    require at_least 1 of (a, b\n  }\n",
    ],
    "`at_least` is written `at_least N of (a, b, c)`": [
        _HEAD + "  match {\n    require at_least a\n",
        _HEAD + "  match {\n    require at_least 2 (a, b)\n",
        _HEAD + "  match {\n    require at_least 2 of a, b\n",
    ],
    "inside `match { }` each line starts with `require`, `support`, `rule_out`, `likely` or `possible`": [
        _HEAD + "  match {\n    a\n",
        _HEAD + "  match {\n    needs a\n",
        _HEAD + '  match {\n    title "x"\n',
    ],
    "a list is `[a, b, c]`: a `,` or `]` is missing": [
        _HEAD + "  tags [a b]\n",
        _HEAD + "  tags [a,\n",
        _HEAD + "  tags [a, b\n  severity high\n",
    ],
    "`weight` takes a number, e.g. `weight 2`": [
        _HEAD + "  match {\n    support a weight x\n",
        _HEAD + "  match {\n    support a weight\n  }\n",
    ],
    'a block is `name { ... }` or `name "label" { ... }`: one label at most': [
        _HEAD + '  step "x" "y" {\n',
        _HEAD + '  step "x" [a] {\n',
    ],
    "`match` is a block: `match { require ... }`": [
        _HEAD + "  match require a\n",
        _HEAD + "  match a\n",
    ],
}


def friendly_message(err: UnexpectedInput, text: str) -> str | None:
    """The label of the table entry that fails like `text` did, if any."""
    try:
        label = err.match_examples(case_parser().parse, SYNTAX_ERRORS, use_accepts=True)
    except Exception:  # match_examples re-parses examples; never let that escape
        return None
    return label if isinstance(label, str) else None


# ---------------------------------------------------------------- targeted checks
@dataclass(frozen=True)
class Finding:
    """A syntax error located where the author has to act, not where the parser stopped."""

    line: int
    column: int
    message: str
    help: str


def tokens_until_error(text: str) -> list[Token]:
    """Every token the plain lexer reads before it meets something it cannot lex."""
    out: list[Token] = []
    try:
        for tok in case_parser().lex(text):
            out.append(tok)
    except LarkError:
        return out
    return out


_FENCE = re.compile(r"```[A-Za-z0-9_+\-]*[ \t]*")
VALUE_TYPES = {"STRING", "TEXT_BLOCK", "CODE_BLOCK", "REGEX", "NUMBER", "DATE", "WORD", "RSQB"}


def unterminated(text: str, err: UnexpectedCharacters) -> Finding | None:
    """An opening quote, fence or slash whose token never ends; or a character we never use."""
    pos = err.pos_in_stream
    rest = text[pos:]
    line, col = err.line, err.column
    if rest.startswith('"""'):
        return Finding(
            line,
            col,
            'this text block is never closed: its closing `"""` is missing',
            'end the text block with `"""` on a line of its own',
        )
    if rest.startswith("```"):
        header = rest.split("\n", 1)[0]
        if "\n" in rest and not _FENCE.fullmatch(header):
            return Finding(
                line,
                col,
                f"a code block's first line holds only ``` and a language, not `{header[:40]}`",
                "put the code on the lines after ```bash",
            )
        return Finding(
            line,
            col,
            "this code block is never closed: its closing ``` is missing",
            "end the code block with ``` on a line of its own",
        )
    if rest.startswith('"'):
        return Finding(
            line,
            col,
            'this string is not closed on its line: a `"` is missing',
            'a "string" ends on its line; use a """text block""" for several lines',
        )
    if rest.startswith("/"):
        return Finding(
            line,
            col,
            "this regex is not closed on its line: a `/` is missing",
            r"write /pattern/ on one line; escape a `/` inside it as `\/`",
        )
    if rest.startswith("`"):
        return Finding(
            line,
            col,
            "a single ` is not part of the language",
            "code blocks start with ``` and a language, e.g. ```bash",
        )
    char = rest[:1]
    shown = char if char.isprintable() else unicodedata.name(char, f"U+{ord(char):04X}")
    hint = {
        "=": "write `name value`, without `=`",
        ":": "`:` only separates an evidence name from its kind: `evidence NAME: KIND {`",
        ";": "statements need no `;`: one per line",
        "'": 'strings use double quotes: "text"',
    }.get(char, 'remove it, or put it inside a "string"')
    return Finding(line, col, f"invalid character `{shown}`", hint)


def second_case(tok: Token) -> Finding:
    return Finding(
        tok.line or 0,
        tok.column or 0,
        "a second `case` in one file: a file holds exactly one case",
        "put each case in its own folder: cases/<id>/case.kb",
    )


def no_case(text: str) -> Finding:
    return Finding(
        1,
        1,
        "the file holds no case; expected `case <id> {`",
        "a case file starts with `case <id> {` and ends with `}`",
    )


def unclosed_block(braces: Braces) -> Finding | None:
    opener = braces.missing_closer()
    if opener is None:
        return None
    return Finding(
        opener.line or 0,
        opener.column or 0,
        f"the file ends before the block opened at line {opener.line} "
        f"(`{braces.opener_text(opener)}`) is closed; a `}}` is missing",
        "add the `}` where this block ends",
    )


def extra_brace(braces: Braces, err_pos: int) -> Finding | None:
    closer = braces.extra_closer(err_pos)
    if closer is None:
        return None
    return Finding(
        closer.line or 0,
        closer.column or 0,
        "this `}` closes the case too early: it looks like one `}` too many",
        "remove this `}`; every `{` needs exactly one `}`",
    )


def word_without_value(tokens: list[Token], err_pos: int) -> Finding | None:
    """`foo` alone on its line: it takes the next line's first token as its value."""
    found: Finding | None = None
    for i, tok in enumerate(tokens[:-1]):
        if (tok.start_pos or 0) >= err_pos:
            break
        nxt = tokens[i + 1]
        prev = tokens[i - 1] if i else None
        after = tokens[i + 2] if i + 2 < len(tokens) else None
        if (
            tok.type != "WORD"
            or prev is None
            or nxt.line == tok.line
            or prev.line == tok.line
            or nxt.type == "LBRACE"
            or prev.type not in VALUE_TYPES | {"LBRACE", "RBRACE"}
            or (after is not None and after.type == "LBRACE" and nxt.type in VALUE_TYPES)
        ):
            continue
        found = Finding(
            tok.line or 0,
            tok.column or 0,
            f"`{tok}` on line {tok.line} has no value on its line",
            f"every attribute takes one value on its line: `{tok} VALUE`; or remove the word",
        )
    return found


OPERATORS = {"AND", "OR", "NOT"}
# What starts a new line of a `match` block, or closes it: never an operand.
CLAUSE_STARTS = {"REQUIRE", "SUPPORT", "RULE_OUT", "LIKELY", "POSSIBLE", "RBRACE"}


def dangling_operator(tokens: list[Token], err_pos: int) -> Finding | None:
    """`require a and` with nothing after `and` on its line: the parser reads the next
    line's `support` as the missing operand and stops one token later (at `q2` of
    `support q2`), far from the mistake. The wrong token is the operator."""
    for i, tok in enumerate(tokens[:-1]):
        nxt = tokens[i + 1]
        after = tokens[i + 2] if i + 2 < len(tokens) else None
        reached = nxt.start_pos == err_pos or (after is not None and after.start_pos == err_pos)
        if tok.type in OPERATORS and nxt.line != tok.line and nxt.type in CLAUSE_STARTS and reached:
            word = str(tok)
            return Finding(
                tok.line or 0,
                tok.column or 0,
                f"`{word}` at the end of line {tok.line} has no operand: a query name is "
                f"missing after it",
                (
                    "`not` takes one query (`not a`): write it after `not`, or remove the `not`"
                    if word == "not"
                    else f"`{word}` joins two queries (`a {word} b`): write the missing one "
                    f"after it, or remove the `{word}`"
                ),
            )
    return None
