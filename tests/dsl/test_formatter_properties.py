"""Property tests: any syntax tree prints to text that parses back to the same tree,
and formatting is idempotent."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsl import syntax as s
from dsl.formatter import format_file
from dsl.parser import parse_text
from dsl.transformer import dedent_block

pytestmark = pytest.mark.slow  # property-based: hundreds of generated case files

KEYWORDS = {
    "case",
    "evidence",
    "match",
    "require",
    "support",
    "rule_out",
    "weight",
    "and",
    "or",
    "not",
    "at_least",
    "of",
}
CHINESE = "中文症状诊断的卡住禁用点对点，。：「」"

names = st.from_regex(r"[a-z_][a-z0-9_]{0,7}(\.zh)?", fullmatch=True).filter(
    lambda n: n not in KEYWORDS
)
refs = st.from_regex(r"[a-z_][a-z0-9_]{0,7}", fullmatch=True).filter(lambda n: n not in KEYWORDS)
words = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.\-]{0,10}", fullmatch=True) | st.sampled_from(
    sorted(KEYWORDS)
)
prose_chars = st.characters(blacklist_categories=("Cs",)) | st.sampled_from(
    CHINESE + "\"\\'`#{}[]/ \t"
)
line_chars = st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")) | st.sampled_from(
    CHINESE + '"\\`#{}/ \t'
)

strings = st.builds(s.StringValue, value=st.text(prose_chars, max_size=20))


def _block_text(lines: list[str]) -> str:
    return dedent_block("\n".join(lines))


text_blocks = st.builds(
    s.TextBlockValue,
    value=st.lists(st.text(line_chars, max_size=15), max_size=4)
    .map(_block_text)
    .filter(lambda v: '"""' not in v),
)
code_blocks = st.builds(
    s.CodeBlockValue,
    language=st.from_regex(r"[A-Za-z0-9_+\-]{0,6}", fullmatch=True),
    code=st.lists(st.text(line_chars, max_size=15), max_size=4)
    .map(_block_text)
    .filter(lambda v: "```" not in v),
)
regex_piece = st.one_of(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\\/\n"),
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\n").map(lambda c: "\\" + c),
    st.just("\\/"),
)
regexes = st.builds(
    s.RegexValue,
    pattern=st.lists(regex_piece, min_size=1, max_size=10).map("".join),
    flags=st.from_regex(r"[a-z]{0,2}", fullmatch=True),
)
numbers = st.from_regex(r"-?[0-9]{1,4}(\.[0-9]{1,3})?", fullmatch=True).map(
    lambda raw: s.NumberValue(value=float(raw), raw=raw)
)
dates = st.from_regex(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", fullmatch=True).map(
    lambda v: s.DateValue(value=v)
)
word_values = words.map(lambda v: s.WordValue(value=v))

scalars = st.one_of(strings, text_blocks, code_blocks, regexes, numbers, dates, word_values)
values = st.recursive(
    scalars, lambda inner: st.builds(s.ListValue, items=st.lists(inner, max_size=5)), max_leaves=8
)

exprs = st.recursive(
    refs.map(lambda n: s.RefExpr(name=n)),
    lambda inner: st.one_of(
        st.builds(s.NotExpr, operand=inner),
        st.builds(s.AndExpr, operands=st.lists(inner, min_size=2, max_size=3)),
        st.builds(s.OrExpr, operands=st.lists(inner, min_size=2, max_size=3)),
        st.builds(
            s.AtLeastExpr,
            count=st.integers(0, 5).map(lambda n: s.NumberValue(value=n, raw=str(n))),
            operands=st.lists(inner, min_size=1, max_size=3),
        ),
    ),
    max_leaves=8,
)
clauses = st.builds(
    s.ClauseNode,
    role=st.sampled_from(["require", "support", "rule_out"]),
    expr=exprs,
    weight=st.none() | numbers,
)
attributes = st.builds(s.AttributeNode, name=names, value=values)
matches = st.builds(s.MatchNode, clauses=st.lists(clauses, max_size=4))
items = st.recursive(
    attributes | matches,
    lambda inner: st.one_of(
        st.builds(
            s.BlockNode, name=names, label=st.none() | values, items=st.lists(inner, max_size=4)
        ),
        st.builds(s.EvidenceNode, name=refs, kind=refs, items=st.lists(inner, max_size=4)),
    ),
    max_leaves=10,
)
files = st.builds(
    s.CaseFile,
    case=st.builds(
        s.CaseNode,
        id=st.from_regex(r"[a-z][a-z0-9\-]{0,15}", fullmatch=True),
        items=st.lists(items, max_size=6),
    ),
)

SETTINGS = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(files)
def test_printed_tree_parses_back_to_the_same_tree(file: s.CaseFile) -> None:
    text = format_file(file)
    assert parse_text(text).case == file.case, text


@SETTINGS
@given(files)
def test_formatting_is_idempotent(file: s.CaseFile) -> None:
    once = format_file(file)
    assert format_file(parse_text(once)) == once
