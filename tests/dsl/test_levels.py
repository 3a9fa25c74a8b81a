"""Confidence levels in the case language: `likely` and `possible` clauses, and `kb check`
refusing a level no evidence can reach."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from dsl import model as m
from dsl.validate import reachable

Run = Callable[..., tuple[int, str, str]]


def _with_match(sample: str, clauses: str) -> str:
    start = sample.index("  match {")
    end = sample.index("\n  }\n", start) + len("\n  }\n")
    return sample[:start] + "  match {\n" + clauses + "  }\n" + sample[end:]


def test_levels_parse_lower_and_check_clean(
    sample_text: str, case_folder: Callable[[str], Path], kb: Run
) -> None:
    text = _with_match(
        sample_text,
        "    require p2p_channels\n    likely consumer_gpu\n"
        "    possible old_accelerate\n    support consumer_gpu\n"
        "    rule_out p2p_disabled\n",
    )
    path = case_folder(text)
    code, out, err = kb("check", str(path))
    assert code == 0, out + err
    assert "never be reached" not in out


def test_check_rejects_an_unreachable_likely_level(
    sample_text: str, case_folder: Callable[[str], Path], kb: Run
) -> None:
    text = _with_match(
        sample_text,
        "    require p2p_channels\n    likely p2p_disabled\n"
        "    support consumer_gpu\n    support old_accelerate\n"
        "    rule_out p2p_disabled\n",
    )
    path = case_folder(text)
    code, out, _ = kb("check", str(path))
    assert code == 1
    assert "the level `likely` can never be reached" in out
    assert f"{path}:" in out  # path:line:col of the offending clause


def test_check_rejects_an_unreachable_confirmed_level(
    sample_text: str, case_folder: Callable[[str], Path], kb: Run
) -> None:
    text = _with_match(
        sample_text,
        "    require p2p_channels and consumer_gpu\n"
        "    likely consumer_gpu\n    support old_accelerate\n"
        "    support p2p_disabled\n    rule_out p2p_channels\n",
    )
    code, out, _ = kb("check", str(case_folder(text)))
    assert code == 1
    assert "the level `confirmed` can never be reached" in out
    assert "`likely`" not in out.split("confirmed` can never")[1].split("\n")[0]


def test_reachability_search_handles_many_queries() -> None:
    names = [m.Ref(name=f"q{i}") for i in range(40)]
    holds: list[m.Expr] = [m.And(operands=list(names))]
    assert reachable(holds, [names[0]]) is False
    assert reachable(holds, [m.Not(operand=names[0])]) is True
    assert reachable([m.AtLeast(count=3, operands=names[:3])], [m.Or(operands=names[:2])]) is False


def test_check_rejects_a_fixture_declared_twice(
    sample_text: str, case_folder: Callable[[str], Path], kb: Run
) -> None:
    block = '  fixture "positive/two-ranks" {\n    expect match\n  }\n'
    text = sample_text.rstrip()
    text = text[:-1] + block + block + "}\n"
    code, out, _ = kb("check", str(case_folder(text)))
    assert code == 1 and "is declared twice" in out


def test_a_lone_surrogate_in_a_string_cannot_break_output(
    sample_text: str, case_folder: Callable[[str], Path], kb: Run
) -> None:
    start = sample_text.index('  title "')
    end = sample_text.index("\n", start)
    text = sample_text[:start] + '  title "\\ud800 hang \\ud83d\\ude00"' + sample_text[end:]
    path = case_folder(text)
    code, out, err = kb("check", str(path))
    assert "Traceback" not in out + err
    code, out, err = kb("fmt", str(path))
    assert code == 0, err
    written = path.read_text(encoding="utf-8")
    assert "\ufffd hang \U0001f600" in written or "\\ud800" in written
