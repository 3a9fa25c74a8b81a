"""Pygments lexer for case files, so ```kbcase blocks on the site and `*.kb` files in
editors that use Pygments are highlighted. Registered as a `pygments.lexers` entry point.

It mirrors the terminals of dsl/grammar.lark; it only colours, it does not validate,
except that a character the language never uses is shown as an error.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Literal,
    Name,
    Number,
    Punctuation,
    String,
    Whitespace,
)

WORD = r"[A-Za-z_][A-Za-z0-9_.\-]*"
KEYWORDS = (
    "match",
    "require",
    "support",
    "rule_out",
    "likely",
    "possible",
    "weight",
    "and",
    "or",
    "not",
    "at_least",
    "of",
)


class CaseLexer(RegexLexer):
    """Highlights keywords, block and attribute names, and every kind of value."""

    name = "kb case"
    aliases: ClassVar[list[str]] = ["kbcase", "kb"]
    filenames: ClassVar[list[str]] = ["*.kb"]
    mimetypes: ClassVar[list[str]] = ["text/x-kbcase"]
    url = "https://github.com/"

    tokens: ClassVar[dict[str, list[Any]]] = {
        # A statement's first word says what it is: keyword, block name or attribute name.
        "root": [
            (r"^[ \t]*(?=[A-Za-z_])", Whitespace, "head"),
            (r"\n", Whitespace),
            (r"[ \t\r\f]+", Whitespace),
            (r"#[^\n]*", Comment.Single),
            (r'"""(.|\n)*?"""', String.Doc),
            (
                r"(```)([A-Za-z0-9_+\-]*)([ \t]*\n(?:.|\n)*?)(```)",
                bygroups(String.Backtick, Name.Label, String.Backtick, String.Backtick),
            ),
            (r'"(?!"")(\\.|[^"\\\n])*"', String.Double),
            (r"/(\\.|[^\\/\n])+/[a-z]*", String.Regex),
            (r"\d{4}-\d{2}-\d{2}(?![\w.\-])", Literal.Date),
            (r"-?\d+(\.\d+)?", Number),
            (words(KEYWORDS, prefix=r"(?<![\w.\-])", suffix=r"(?![\w.\-])"), Keyword),
            (WORD, Name),
            (r"[{}\[\](),:]", Punctuation),
            (r".", Error),
        ],
        "head": [
            (
                rf"(case)(\s+)({WORD})",
                bygroups(Keyword.Declaration, Whitespace, Name.Namespace),
                "#pop",
            ),
            (
                rf"(evidence)(\s+)({WORD})(\s*)(:)(\s*)({WORD})",
                bygroups(
                    Keyword.Declaration,
                    Whitespace,
                    Name.Variable,
                    Whitespace,
                    Punctuation,
                    Whitespace,
                    Name.Class,
                ),
                "#pop",
            ),
            (words(KEYWORDS, suffix=r"(?![\w.\-])"), Keyword, "#pop"),
            (rf"{WORD}(?=[^\n{{}}#]*\{{)", Name.Tag, "#pop"),
            (WORD, Name.Attribute, "#pop"),
        ],
    }
