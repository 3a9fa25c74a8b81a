"""Commands on case pages are safe to paste, and the first fix sits right under the summary."""

from __future__ import annotations

import pytest

from dsl import model as m
from dsl.api import load_cases
from kb.site import casepage, commands


@pytest.fixture(scope="module")
def cases() -> list[m.Case]:
    return list(load_cases(with_env=False).cases)


def _blocks(case: m.Case) -> list[m.CodeBlock]:
    out: list[m.CodeBlock] = []
    for r in case.remedies:
        for step in r.steps:
            out += [*step.commands, *step.verify_commands, *(b for _, b in step.alternatives)]
    return out


def test_a_placeholder_becomes_a_variable_set_first() -> None:
    out = commands.safe("ps -p <PID-from-above>\nkill <PID>  # then <PID> again", "bash")
    assert out.splitlines()[0] == "# set first: PID_FROM_ABOVE=… PID=…"
    assert "ps -p ${PID_FROM_ABOVE}" in out and "kill ${PID}  # then ${PID} again" in out
    assert commands.placeholders(out) == []


def test_shell_syntax_that_looks_like_a_placeholder_is_left_alone() -> None:
    for code in ("cat <<EOF\nx\nEOF", "diff <(a) <(b)", "cmd < in.txt > out.txt 2>&1"):
        assert commands.safe(code, "bash") == code
    assert commands.safe("if a<b>c: pass", "python") == "if a<b>c: pass"


def test_no_rendered_command_of_any_case_holds_a_placeholder(cases: list[m.Case]) -> None:
    """Cases hold `<PID>`-style placeholders (bash reads `<PID` as a redirection); what the
    page renders holds none of them."""
    raw, rendered = [], []
    for case in cases:
        for block in _blocks(case):
            raw += [(case.id, p) for p in commands.placeholders(block.code)]
            shown = str(casepage.command(block))
            rendered += [(case.id, p) for p in commands.placeholders(shown)]
    assert raw, "no case holds a placeholder any more: this test checks nothing"
    assert rendered == []


def test_every_case_with_a_fix_has_the_fix_box(cases: list[m.Case]) -> None:
    with_fix = [c for c in cases if c.remedies]
    assert with_fix
    for case in with_fix:
        box = str(casepage.fix_box(case))
        assert 'id="fix-first"' in box, case.id
        assert str(casepage.escape.line(case.remedies[0].title.en)) in box, case.id
        first = casepage.first_command(case.remedies[0])
        if first is not None:
            assert first.code.splitlines()[-1].split("<")[0] in box, case.id
    assert casepage.fix_box(cases[0].model_copy(update={"remedies": []})) is None
