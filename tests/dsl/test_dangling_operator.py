"""A condition cut short at the end of a line is reported at the operator left dangling,
not at the next line, where the parser only notices it (issue 28: "unexpected `q2`")."""

from __future__ import annotations

import pytest

from dsl.parser import CaseSyntaxError, parse_text

HEAD = 'case demo-case {\n  title "t"\n  evidence q1: log {\n    pattern /x/\n  }\n'


def error_of(text: str) -> tuple[int, int, str]:
    with pytest.raises(CaseSyntaxError) as info:
        parse_text(text, "case.kb")
    d = info.value.diagnostic
    return d.line, d.column, d.message


@pytest.mark.parametrize(
    ("clause", "next_line", "column"),
    [
        ("require q1 and", "support q2", 16),
        ("require q1 or", "support q2 weight 2", 16),
        ("require q1 and", "rule_out (q2 or q3)", 16),
        ("support q1 or", "likely q2", 16),
        ("require not", "possible q2", 13),
        ("require q1 and", "}", 16),
    ],
)
def test_a_dangling_operator_is_reported_where_it_is(
    clause: str, next_line: str, column: int
) -> None:
    text = HEAD + f"  match {{\n    {clause}\n    {next_line}\n  }}\n}}\n"
    line, col, message = error_of(text)
    operator = clause.rsplit(" ", 1)[1]
    assert (line, col) == (7, column)
    assert message == (
        f"`{operator}` at the end of line 7 has no operand: a query name is missing after it"
    )


def test_a_condition_continued_on_the_next_line_is_fine() -> None:
    text = HEAD + "  match {\n    require q1 and\n      q2\n  }\n}\n"
    parse_text(text, "case.kb")  # no error: an operand may start the next line


def test_kb_check_shows_the_operator_with_a_caret(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from kb.cli.main import main

    folder = tmp_path / "demo-case"
    folder.mkdir()
    (folder / "case.kb").write_text(
        HEAD + "  match {\n    require q1 and\n    support q2\n  }\n}\n", encoding="utf-8"
    )
    assert main(["check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"{folder / 'case.kb'}:7:16: error: `and` at the end of line 7 has no operand" in out
    assert "    7 |     require q1 and\n" + " " * 23 + "^\n" in out
    assert "unexpected `q2`" not in out
