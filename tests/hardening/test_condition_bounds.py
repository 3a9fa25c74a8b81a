"""Issue 29: a condition chain of 10,000 terms took 5 s of CPU to check (40,000: 17 s). Past
MAX_CONDITION_TERMS a clause is a located error, reported before any later pass runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dsl.parser import MAX_CONDITION_TERMS, CaseSyntaxError, parse_text
from kb.cli.main import main

REPO = Path(__file__).resolve().parents[2]
CASE = "gpu-ecc-xid-errors"
CLAUSE = "    support smi_uncorr_ecc\n"


def _with_chain(refs: int) -> tuple[str, int]:
    """The bundled case with one `support` clause made a chain of `refs` names; its line."""
    text = (REPO / "cases" / CASE / "case.kb").read_text(encoding="utf-8")
    assert CLAUSE in text
    line = text[: text.index(CLAUSE)].count("\n") + 1
    chain = " or ".join(["smi_uncorr_ecc"] * refs)
    return text.replace(CLAUSE, f"    support {chain}\n", 1), line


def test_a_chain_of_10000_terms_is_a_located_error() -> None:
    text, line = _with_chain(10_000)
    with pytest.raises(CaseSyntaxError) as err:
        parse_text(text, "case.kb")
    d = err.value.diagnostic
    assert d.code == "too-large" and d.line == line and d.column == 5
    assert "10,001 terms" in d.message and f"{MAX_CONDITION_TERMS:,}" in d.message


def test_a_long_but_bounded_chain_still_parses() -> None:
    text, _ = _with_chain(MAX_CONDITION_TERMS - 1)  # the names and the `or`: exactly the bound
    assert parse_text(text, "case.kb").case.id == CASE


def test_kb_check_reports_the_bound_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / CASE
    shutil.copytree(REPO / "cases" / CASE, folder)
    text, line = _with_chain(40_000)
    (folder / "case.kb").write_text(text, encoding="utf-8")
    assert main(["check", str(folder)]) == 1
    out = capsys.readouterr()
    assert f"case.kb:{line}:5" in out.out + out.err
    assert "at most 2,000 are allowed" in out.out + out.err
    assert "Traceback" not in out.out + out.err
