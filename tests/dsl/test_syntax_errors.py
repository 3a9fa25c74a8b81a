"""Syntax errors: the table of known mistakes, targeted locations, and broken real files."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from lark.exceptions import UnexpectedInput

from dsl.api import parse_case_file
from dsl.diagnostics import render
from dsl.grammar import case_parser
from dsl.parser import CaseSyntaxError, parse_text
from dsl.syntax_errors import SYNTAX_ERRORS, friendly_message
from dsl.validate import validate_cases

TABLE = [(label, example) for label, examples in SYNTAX_ERRORS.items() for example in examples]


@pytest.mark.parametrize(
    ("label", "example"), TABLE, ids=[f"{i}-{label[:30]}" for i, (label, _) in enumerate(TABLE)]
)
def test_every_table_example_fails_with_its_own_label(label: str, example: str) -> None:
    with pytest.raises(UnexpectedInput) as err:
        case_parser().parse(example)
    assert friendly_message(err.value, example) == label
    with pytest.raises(CaseSyntaxError) as friendly:
        parse_text(example, "t.kb")
    assert friendly.value.diagnostic.line >= 1


def error_of(text: str) -> tuple[int, int, str]:
    with pytest.raises(CaseSyntaxError) as err:
        parse_text(text, "x.kb")
    d = err.value.diagnostic
    return d.line, d.column, d.message


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


# ---------------------------------------------------------------- targeted locations
def test_unclosed_block_points_at_its_opening_line(sample_text: str) -> None:
    broken = sample_text.replace("    is set\n  }\n", "    is set\n")
    line, _, message = error_of(broken)
    assert line == line_of(sample_text, "evidence p2p_disabled: env {")
    assert "(`evidence p2p_disabled: env {`) is closed; a `}` is missing" in message
    assert message.startswith(f"the file ends before the block opened at line {line}")


def test_unclosed_nested_block_is_found_by_indentation(sample_text: str) -> None:
    anchor = '      verify "prepare() returns within seconds"\n    }\n'
    broken = sample_text.replace(anchor, anchor.replace("    }\n", ""))
    line, _, _ = error_of(broken)
    assert line == line_of(sample_text, 'step "Run once with P2P off" {')


@pytest.mark.parametrize(
    ("anchor", "extra", "offset"),
    [
        ("    scope any\n", "    scope any\n    }\n", 1),  # misaligned `}`
        ("    scope any\n", "    scope any }\n", 0),  # `}` at the end of a line
        ("    is set\n  }\n", "    is set\n  }\n  }\n", 2),  # aligned, but the case closes
    ],
)
def test_extra_closing_brace_is_reported_where_it_is(
    sample_text: str, anchor: str, extra: str, offset: int
) -> None:
    broken = sample_text.replace(anchor, extra, 1)
    line, _, message = error_of(broken)
    assert line == line_of(sample_text, anchor) + offset
    assert "one `}` too many" in message


@pytest.mark.parametrize(
    "anchor", ["  tags [hang", "  severity high", "    is set\n", "    expect match", "  match {"]
)
def test_stray_word_is_reported_on_its_own_line(sample_text: str, anchor: str) -> None:
    broken = sample_text.replace(anchor, "  foo\n" + anchor, 1)
    line, column, message = error_of(broken)
    assert line == line_of(sample_text, anchor)
    assert message == f"`foo` on line {line} has no value on its line"
    assert column == 3


@pytest.mark.parametrize(
    ("before", "after", "at", "says"),
    [
        ('over PCIe"\n', "over PCIe\n", '"Hang', "string is not closed"),
        ("model /RTX 40\\d0/", "model /RTX 40\\d0", "/RTX", "regex is not closed"),
        ("scope any", "scope = any", "=", "invalid character `=`"),
        ("scope any", "scope any;", ";", "invalid character `;`"),
        ("scope any", "scope any @", "@", "invalid character `@`"),
        ("scope any", "scope 'any'", "'", "invalid character `'`"),
        ("scope any", "scope any\x01", "\x01", "invalid character `U+0001`"),
        ("collect ```bash", "collect ```bash export X=1", "```", "first line holds only ```"),
    ],
)
def test_bad_tokens_are_reported_at_their_start(
    sample_text: str, before: str, after: str, at: str, says: str
) -> None:
    broken = sample_text.replace(before, after, 1)
    line, column, message = error_of(broken)
    assert says in message
    assert line == line_of(broken, after)
    assert column == broken.split("\n")[line - 1].index(at) + 1


def test_unterminated_blocks_point_at_the_opening_fence(sample_text: str) -> None:
    cut = sample_text[: sample_text.index("NCCL falls back")]
    line, column, message = error_of(cut)
    assert (line, column) == (line_of(sample_text, 'why """'), 11)
    assert "text block is never closed" in message
    cut = sample_text[: sample_text.index("NCCL_P2P_DISABLE=1 accelerate")]
    line, _, message = error_of(cut)
    assert line == line_of(sample_text, "run ```bash")
    assert "code block is never closed" in message


def test_empty_file_and_second_case() -> None:
    assert error_of("") == (1, 1, "the file holds no case; expected `case <id> {`")
    assert error_of("# only a comment\n\n")[0] == 1
    assert error_of("case a {\n}\ncase b {\n}\n") == (
        3,
        1,
        "a second `case` in one file: a file holds exactly one case",
    )


# ---------------------------------------------------------------- the file cut in half
def _expected_cut_line(lines: list[str]) -> int:
    """Independent of dsl.braces: the innermost block still open, or an open fence."""
    stack: list[int] = []
    fence: int | None = None
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if fence is not None:
            if stripped in ('"""', "```"):
                fence = None
            continue
        if stripped.endswith(('"""', "```bash")) or re.search(r"```\w*$", stripped):
            fence = number
        elif stripped.endswith("{"):
            stack.append(number)
        elif stripped.startswith("}"):
            stack.pop()
    if fence is not None:
        return fence
    return stack[-1] if stack else 1


def test_cut_at_every_line_reports_the_innermost_open_block(sample_text: str) -> None:
    lines = sample_text.split("\n")
    end = len(lines) - 2  # the last line is the case's `}`
    for n in range(0, end):
        cut = "\n".join(lines[:n]) + "\n"
        line, _, message = error_of(cut)
        assert line == _expected_cut_line(lines[:n]), (n, message)


# ---------------------------------------------------------------- through `kb check`
def _check_error(kb: Callable[..., tuple[int, str, str]], path: Path, line: int, says: str) -> str:
    code, out, err = kb("check", str(path))
    assert code == 1
    assert "Traceback" not in out + err
    assert re.search(rf"case\.kb:{line}:\d+: error: .*{re.escape(says)}", out), out
    assert re.search(rf"^\s*{line} \| ", out, re.M) and "^" in out
    assert "checked 1 case(s): " in out
    return out


def test_check_unclosed_block(kb, case_folder, sample_text) -> None:  # type: ignore[no-untyped-def]
    path = case_folder(sample_text.replace("    is set\n  }\n", "    is set\n"))
    _check_error(kb, path, line_of(sample_text, "evidence p2p_disabled"), "a `}` is missing")


def test_check_stray_token(kb, case_folder, sample_text) -> None:  # type: ignore[no-untyped-def]
    path = case_folder(sample_text.replace("  severity high", "  foo\n  severity high"))
    _check_error(kb, path, line_of(sample_text, "  severity high"), "`foo` on line")


def test_check_broken_regex(kb, case_folder, sample_text) -> None:  # type: ignore[no-untyped-def]
    path = case_folder(sample_text.replace("model /RTX 40\\d0/", "model /(a/"))
    out = _check_error(kb, path, line_of(sample_text, "model /RTX"), "regex in `consumer_gpu`")
    assert "[bad-regex]" in out or "regex" in out


def test_check_bad_version(kb, case_folder, sample_text) -> None:  # type: ignore[no-untyped-def]
    path = case_folder(sample_text.replace('"accelerate>=0.20"\n  }', '"accelerate>=>1"\n  }'))
    _check_error(kb, path, line_of(sample_text, 'requires "accelerate'), "invalid requirement")


def test_check_cut_in_half_at_many_points(kb, case_folder, sample_text) -> None:  # type: ignore[no-untyped-def]
    lines = sample_text.split("\n")
    for n in range(1, len(lines) - 2, 5):
        path = case_folder("\n".join(lines[:n]) + "\n")
        _check_error(kb, path, _expected_cut_line(lines[:n]), "")


# ---------------------------------------------------------------- never a traceback
def _diagnose(text: str) -> list[str]:
    try:
        syntax = parse_text(text, "f.kb")
    except CaseSyntaxError as err:
        d = err.diagnostic
        assert d.line >= 1 and d.message
        return [render(d, text)]
    from dsl.lower import lower

    case, problems = lower(syntax)
    problems += validate_cases([case] if case else [])
    return [render(d, text) for d in problems]


def test_every_7th_prefix_yields_diagnostics_not_exceptions(sample_text: str) -> None:
    for n in range(0, len(sample_text), 7):
        assert _diagnose(sample_text[:n]), n


def test_random_byte_mutations_never_raise(tmp_path: Path, sample_text: str) -> None:
    rng = random.Random(20260605)
    data = sample_text.encode("utf-8")
    path = tmp_path / "case.kb"
    for _ in range(300):
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(mutated))
            choice = rng.random()
            if choice < 0.4:
                mutated[pos] = rng.randrange(256)
            elif choice < 0.7:
                del mutated[pos]
            else:
                mutated.insert(pos, rng.choice(b'{}[]()"/`#:,\n x'))
        path.write_bytes(bytes(mutated))
        case, diagnostics, text = parse_case_file(path)
        if case is not None:
            diagnostics += validate_cases([case])
        for d in diagnostics:
            render(d, text)
        assert case is not None or diagnostics
