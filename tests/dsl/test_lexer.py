"""The Pygments lexer colours a real case without error tokens."""

from __future__ import annotations

from pathlib import Path

from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import Comment, Error, Keyword, Literal, Name, Number, String

from dsl.lexer import CaseLexer

SAMPLE = Path(__file__).parent / "data" / "nccl-p2p.kb"


def tokens(text: str) -> list[tuple[object, str]]:
    return list(CaseLexer().get_tokens(text))


def test_real_case_has_no_error_tokens_and_keeps_every_character() -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    toks = tokens(text)
    assert not [t for t in toks if t[0] is Error]
    assert "".join(v for _, v in toks) == text


def test_each_construct_gets_its_token_type() -> None:
    kinds = {v: t for t, v in tokens(SAMPLE.read_text(encoding="utf-8"))}
    assert kinds["case"] in Keyword and kinds["nccl-p2p-consumer-gpu-hang"] in Name
    assert kinds["require"] in Keyword and kinds["at_least"] in Keyword
    assert kinds["and"] in Keyword and kinds["not"] in Keyword and kinds["of"] in Keyword
    assert kinds["weight"] in Keyword and kinds["rule_out"] in Keyword
    assert kinds["remedy"] is Name.Tag and kinds["step"] is Name.Tag
    assert kinds["severity"] is Name.Attribute and kinds["title.zh"] is Name.Attribute
    assert kinds["log"] is Name.Class and kinds["p2p_channels"] in Name
    assert kinds["/RTX 40\\d0/"] is String.Regex
    assert kinds["2026-06-05"] is Literal.Date
    assert kinds["2"] in Number
    assert any(t is String.Doc for t in kinds.values())
    assert any(t is String.Backtick for t in kinds.values())
    assert kinds["# blocks training entirely"] in Comment


def test_invalid_character_is_an_error_token() -> None:
    assert any(t is Error for t, _ in tokens("case c {\n  scope = any\n}\n"))


def test_registered_with_pygments() -> None:
    assert isinstance(get_lexer_by_name("kbcase"), CaseLexer)
    assert isinstance(get_lexer_for_filename("case.kb"), CaseLexer)
