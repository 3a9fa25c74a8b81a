"""Golden tests of the formatter: real case files, comment placement, edge cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsl import syntax as s
from dsl.api import DEFAULT_CASES
from dsl.formatter import FormatError, format_file, format_text
from dsl.parser import parse_text

DATA = Path(__file__).parent / "data"
REAL_CASES = sorted(DEFAULT_CASES.glob("*/case.kb"))
GOLDEN = sorted(DATA.glob("*.kb"))


@pytest.mark.parametrize("path", REAL_CASES + GOLDEN, ids=lambda p: p.parent.name + "/" + p.name)
def test_real_case_files_format_to_the_same_tree_and_are_stable(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    once = format_text(text, str(path))
    assert parse_text(once).case == parse_text(text).case
    assert format_text(once) == once
    assert [c.text for c in parse_text(once).comments] == [
        c.text for c in parse_text(text).comments
    ]


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.name)
def test_golden_files_are_already_canonical(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert format_text(text) == text


MESSY = """# header one
# header two
case demo {
title "t"   # trailing on title
    severity high
  # leads tags
  tags [a,b,
  c]
  step "x" {   # on the opening line
  why "y" }  # after the closing brace
  match { require a and (b or c) # trailing in match
  # leads support
  support at_least 2 of (a, b, c) weight 2
  # last in match
  }
  # last in case
}
# footer
"""

CANONICAL = """# header one
# header two
case demo {
  title "t"  # trailing on title
  severity high
  # leads tags
  tags [a, b, c]

  step "x" {  # on the opening line
    why "y"
  }  # after the closing brace

  match {
    require a and (b or c)  # trailing in match
    # leads support
    support at_least 2 of (a, b, c) weight 2
    # last in match
  }

  # last in case
}
# footer
"""


def test_messy_layout_and_comment_placement() -> None:
    assert format_text(MESSY) == CANONICAL
    assert format_text(CANONICAL) == CANONICAL


def test_comment_inside_a_multiline_list_leads_its_statement() -> None:
    text = "case c {\n  tags [\n    a,\n    # why b\n    b,\n  ]\n}\n"
    assert format_text(text) == "case c {\n  # why b\n  tags [a, b]\n}\n"


def test_long_list_goes_one_item_per_line_with_trailing_comma() -> None:
    items = ", ".join(f'"https://example.org/{i:02d}/some/long/path"' for i in range(4))
    out = format_text(f"case c {{\n  references [{items}]\n}}\n")
    assert out.splitlines()[1] == "  references ["
    assert out.splitlines()[2] == '    "https://example.org/00/some/long/path",'
    assert out.splitlines()[-2] == "  ]"
    short = format_text("case c {\n  tags [\n a,\n b,\n]\n}\n")
    assert "  tags [a, b]" in short


def test_a_list_exactly_at_the_width_stays_on_one_line() -> None:
    head = "  references ["
    item = "x" * (100 - len(head) - 3)
    line = f'{head}"{item}"]'
    assert len(line) == 100
    assert format_text(f"case c {{\n{line}\n}}\n").splitlines()[1] == line
    longer = format_text(f'case c {{\n{head}"{item}x"]\n}}\n')
    assert longer.splitlines()[1] == head


def test_strings_are_re_escaped_canonically() -> None:
    out = format_text('case c {\n  title "a\\u0041\\/ \\"q\\" \\\\ \\t"\n}\n')
    assert out == 'case c {\n  title "aA/ \\"q\\" \\\\ \\t"\n}\n'


def test_string_with_an_invalid_escape_keeps_its_text() -> None:
    src = 'case c {\n  title "C:\\dir"\n}\n'  # \d is no JSON escape: kept as written
    out = format_text(src)
    assert out == 'case c {\n  title "C:\\\\dir"\n}\n'
    assert parse_text(out).case == parse_text(src).case


def test_empty_strings_never_become_a_text_block() -> None:
    out = format_text('case c {\n  a ""\n  b ["",""]\n  c "" {\n  }\n}\n')
    tree = parse_text(out).case
    assert tree.items[0] == s.AttributeNode(name="a", value=s.StringValue(value=""))
    assert 'b ["", ""]' in out


def test_text_block_containing_triple_quotes_falls_back_to_a_string() -> None:
    case = s.CaseFile(
        case=s.CaseNode(
            id="c",
            items=[s.AttributeNode(name="why", value=s.TextBlockValue(value='say """hi"""\nbye'))],
        )
    )
    out = format_file(case)
    assert out == 'case c {\n  why "say \\"\\"\\"hi\\"\\"\\"\\nbye"\n}\n'
    assert parse_text(out).case.items[0].value == s.StringValue(value='say """hi"""\nbye')


def test_text_block_layout() -> None:
    out = format_text('case c {\n  step "s" {\n    why """\nline one\n  indented\n"""\n  }\n}\n')
    assert out == (
        'case c {\n  step "s" {\n    why """\n      line one\n        indented\n    """\n  }\n}\n'
    )


def test_code_block_containing_a_fence_is_reported_not_printed() -> None:
    case = s.CaseFile(
        case=s.CaseNode(
            id="c",
            items=[
                s.AttributeNode(name="run", value=s.CodeBlockValue(language="md", code="```\nx"))
            ],
        )
    )
    with pytest.raises(FormatError) as err:
        format_file(case)
    assert "```" in err.value.diagnostic.message


def test_code_block_layout_keeps_relative_indentation() -> None:
    src = "case c {\n  run ```python\n      if x:\n          y()\n      ```\n}\n"
    assert format_text(src) == "case c {\n  run ```python\n  if x:\n      y()\n  ```\n}\n"


@pytest.mark.parametrize(
    "condition",
    [
        "a or b and c",
        "(a or b) and c",
        "a or (b or c)",
        "(a and b) and c",
        "not (a or b)",
        "not not a",
        "at_least 2 of (a or b, not c, (d and e))",
        "not at_least 1 of (a)",
    ],
)
def test_conditions_keep_their_meaning(condition: str) -> None:
    src = f"case c {{\n  match {{\n    require {condition}\n  }}\n}}\n"
    out = format_text(src)
    assert parse_text(out).case == parse_text(src).case
    assert format_text(out) == out


def test_numbers_and_regexes_are_printed_as_written() -> None:
    src = "case c {\n  rank 01\n  weight_x -2.50\n  pattern /a\\/b\\d+/i\n}\n"
    assert format_text(src) == src


CATALOGUE_FILE = """# Messages of a toy emitter.
message  toy.a.first { emitter nccl
  means "first"   # what it means
  role shared causes [unknown]
  wording "Got completion with error {status:int}" { source "a.cc:1@v1" }
}
# the second one
message toy.a.second {
  emitter nccl means "second" role context
  wording "NCCL version {version}" {}
}
# end of file
"""


def test_a_catalogue_file_formats_like_a_case_and_keeps_its_comments() -> None:
    from dsl.formatter import format_declarations
    from dsl.parser import parse_declarations

    out = format_declarations(CATALOGUE_FILE)
    assert out.startswith("# Messages of a toy emitter.\nmessage toy.a.first {\n  emitter nccl\n")
    assert '  means "first"  # what it means\n' in out
    assert "}\n\n# the second one\nmessage toy.a.second {\n" in out
    assert out.endswith("}\n# end of file\n")
    assert format_declarations(out) == out  # idempotent
    assert parse_declarations(out) == parse_declarations(CATALOGUE_FILE)  # same content
