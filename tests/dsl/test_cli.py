"""`kb check` and `kb fmt` end to end, in-process."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from dsl.diagnostics import Diagnostic, Severity

Kb = Callable[..., tuple[int, str, str]]


@pytest.fixture
def no_lint(monkeypatch: pytest.MonkeyPatch) -> list[Diagnostic]:
    """Replace the lint layer by one returning what the test puts in the list."""
    from kb.cli import check

    found: list[Diagnostic] = []
    monkeypatch.setattr(check, "lint_cases", lambda cases: list(found))
    return found


def test_check_clean_case_exits_0(kb: Kb, case_folder, sample_text: str, no_lint) -> None:  # type: ignore[no-untyped-def]
    path = case_folder(sample_text)
    code, out, _ = kb("check", str(path.parent))
    assert code == 0, out
    assert out.strip().splitlines()[-1] == "checked 1 case(s): 0 error(s), 0 warning(s)"


def test_check_reports_lint_findings(kb: Kb, case_folder, sample_text: str, no_lint) -> None:  # type: ignore[no-untyped-def]
    path = case_folder(sample_text)
    no_lint.append(
        Diagnostic(
            path=str(path),
            line=3,
            column=1,
            message="lint says hi",
            severity=Severity.WARNING,
            code="lint/x",
        )
    )
    code, out, _ = kb("check", str(path))
    assert code == 0
    assert ":3:1: warning: lint says hi" in out
    assert "0 error(s), 1 warning(s)" in out


def test_check_cases_option_and_env(
    kb: Kb, case_folder, sample_text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_lint
) -> None:  # type: ignore[no-untyped-def]
    path = case_folder(sample_text)
    other = tmp_path / "more" / "broken"
    other.mkdir(parents=True)
    (other / "case.kb").write_text("case broken {\n", encoding="utf-8")
    code, out, _ = kb("check", str(path), "--cases", str(tmp_path / "more"))
    assert code == 1
    assert "checked 2 case(s): 1 error(s)" in out
    assert "broken/case.kb:1:" in out
    monkeypatch.setenv("KB_CASES", str(tmp_path / "more"))
    code, out, _ = kb("check", str(path))
    assert code == 1 and "checked 2 case(s)" in out


def test_check_missing_path_and_usage(kb: Kb, tmp_path: Path) -> None:
    code, out, _ = kb("check", str(tmp_path / "nope"))
    assert code == 1 and "no such file or folder" in out
    code, _, err = kb("check", "--bogus")
    assert code == 2 and "usage" in err


MESSY = 'case c {\ntitle "t"   # note\n    tags [a,b]\n}\n'
CANON = 'case c {\n  title "t"  # note\n  tags [a, b]\n}\n'


def test_fmt_rewrites_in_place_atomically(kb: Kb, tmp_path: Path) -> None:
    path = tmp_path / "c" / "case.kb"
    path.parent.mkdir()
    path.write_text(MESSY, encoding="utf-8")
    path.chmod(0o640)
    code, out, _ = kb("fmt", str(path))
    assert code == 0 and f"reformatted {path}" in out
    assert path.read_text(encoding="utf-8") == CANON
    assert path.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in path.parent.iterdir()) == ["case.kb"]
    code, out, _ = kb("fmt", str(path))
    assert code == 0 and "reformatted" not in out


def test_fmt_check_and_diff_write_nothing(kb: Kb, tmp_path: Path) -> None:
    path = tmp_path / "case.kb"
    path.write_text(MESSY, encoding="utf-8")
    code, out, _ = kb("fmt", "--check", str(path))
    assert code == 1 and f"would reformat {path}" in out
    code, out, _ = kb("fmt", "--check", "--diff", str(path))
    assert code == 1 and "-    tags [a,b]\n" in out and "+  tags [a, b]\n" in out
    assert path.read_text(encoding="utf-8") == MESSY
    path.write_text(CANON, encoding="utf-8")
    assert kb("fmt", "--check", str(path))[0] == 0


def test_fmt_leaves_unparsable_files_untouched(kb: Kb, tmp_path: Path) -> None:
    bad = tmp_path / "bad.kb"
    bad.write_text('case c {\n  title "t\n}\n', encoding="utf-8")
    good = tmp_path / "good.kb"
    good.write_text(MESSY, encoding="utf-8")
    code, _, err = kb("fmt", str(bad), str(good))
    assert code == 1
    assert "bad.kb:2:9: error: this string is not closed" in err and "^" in err
    assert bad.read_text(encoding="utf-8") == 'case c {\n  title "t\n}\n'
    assert good.read_text(encoding="utf-8") == CANON


def test_fmt_reports_non_utf8(kb: Kb, tmp_path: Path) -> None:
    bad = tmp_path / "bad.kb"
    bad.write_bytes(b"case c {\xff}\n")
    code, _, err = kb("fmt", str(bad))
    assert code == 1 and "cannot read" in err
    assert bad.read_bytes() == b"case c {\xff}\n"


def test_check_reads_a_catalogue_folder_by_its_name(kb: Kb, tmp_path: Path) -> None:
    folder = tmp_path / "catalogue" / "messages" / "nccl"
    folder.mkdir(parents=True)
    (folder / "a.kb").write_text(
        'message nccl.x.y {\n  emitter nccl\n  means "m"\n  role shared\n  causes [unknown]\n'
        '  wording "Got completion with error {status:int}" { source "a.cc:1@v2.7.8-1" }\n'
        '  sample "NCCL WARN Got completion with status 12" { from "https://example.org" }\n}\n',
        encoding="utf-8",
    )
    code, out, _ = kb("check", str(tmp_path / "catalogue"))
    assert code == 1, out
    assert "a.kb:7:3: error: a sample of message `nccl.x.y` matches none of its wordings" in out
    assert out.strip().splitlines()[-1] == (
        "checked 1 catalogue entry (1 file(s)): 1 error(s), 0 warning(s)"
    )
