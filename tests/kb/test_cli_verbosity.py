"""`-q/--quiet` and `-v/--verbose` on `kb test`, `kb check` and `kb eval`: quiet shows only the
failures and the summary line, the default is the full report, verbose adds to it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from remote_error_pack import ERROR, remote_error_case

from kb.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
P2P = ROOT / "cases" / "nccl-p2p-consumer-gpu-hang"
CASE = remote_error_case("cli-verbosity-remote-error")
SEVEN = "".join(ERROR.replace("rank1]", f"rank1]:{n}") for n in range(7))


def _fixture_pack(root: Path) -> list[str]:
    """One case: a positive fixture with seven evidence lines (passes), a negative fixture that
    matches (fails), and a known gap."""
    folder = root / "cli-verbosity-remote-error"
    for rel, text in (
        ("positive/seven-lines", SEVEN),
        ("negative/looks-healthy", ERROR),
        ("positive/known-gap", "core dumped\n"),
    ):
        (folder / "fixtures" / rel).mkdir(parents=True)
        (folder / "fixtures" / rel / "rank1.log").write_text(text, encoding="utf-8")
    (folder / "case.kb").write_text(CASE, encoding="utf-8")
    return ["--no-bundled", "--cases", str(root)]


def _out(args: list[str], capsys: pytest.CaptureFixture[str], code: int) -> list[str]:
    assert main(args) == code
    return capsys.readouterr().out.splitlines()


# --- kb test -----------------------------------------------------------------------------------


def test_kb_test_quiet_shows_only_failures_and_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = _fixture_pack(tmp_path)
    full = _out(["test", *pack], capsys, 1)
    assert any("PASS" in line for line in full) and any("KNOWN GAP" in line for line in full)
    quiet = _out(["test", "-q", *pack], capsys, 1)
    assert quiet[-1] == "1 passed, 1 failed, 1 known gap" == full[-1]
    assert not any("PASS" in line or "KNOWN GAP" in line for line in quiet)
    assert any(line.strip().startswith("FAIL") and "looks-healthy" in line for line in quiet)
    assert "cli-verbosity-remote-error" in quiet  # the case a failure belongs to
    assert len(quiet) < len(full)


def test_kb_test_verbose_shows_every_evidence_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = _fixture_pack(tmp_path)
    full = "\n".join(_out(["test", *pack], capsys, 1))
    assert "… 2 more" in full and "rank1.log:7" not in full
    verbose = "\n".join(_out(["test", "--verbose", *pack], capsys, 1))
    assert "… 2 more" not in verbose
    assert all(f"rank1.log:{n} (remote_error)" in verbose for n in range(1, 8))


def test_quiet_and_verbose_together_are_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in (["test"], ["check"], ["eval"]):
        with pytest.raises(SystemExit) as exc:
            main([*command, "-q", "-v"])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith(f"usage: kb {command[0]} ") and "not allowed with" in err


# --- kb check ----------------------------------------------------------------------------------


def _check_pack(root: Path) -> Path:
    """A clean case (with warnings: no fixtures) and a broken one."""
    (root / "good").mkdir(parents=True)
    good = CASE[: CASE.index("  fixture ")] + "}\n"
    (root / "good" / "case.kb").write_text(good.replace("cli-verbosity-remote-error", "good"))
    (root / "broken").mkdir()
    (root / "broken" / "case.kb").write_text(
        'case broken {\n  title "x"\n  match {\n    require nothing\n  }\n}\n'
    )
    return root


def test_kb_check_quiet_shows_errors_and_the_summary_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = str(_check_pack(tmp_path))
    full = "\n".join(_out(["check", pack], capsys, 1))
    assert "warning:" in full and "error:" in full
    quiet = _out(["check", "--quiet", pack], capsys, 1)
    text = "\n".join(quiet)
    assert "warning:" not in text
    assert "`nothing` is not a defined evidence query" in text
    assert quiet[-1] == full.splitlines()[-1]
    assert quiet[-1].startswith("checked 2 case(s): ")


def test_kb_check_verbose_names_every_file_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = _check_pack(tmp_path)
    full = "\n".join(_out(["check", str(pack)], capsys, 1))
    verbose = "\n".join(_out(["check", "-v", str(pack)], capsys, 1))
    good = str(pack / "good" / "case.kb")
    assert f"checked {good}: 0 error(s)" not in full
    assert f"checked {good}: 0 error(s)" in verbose
    assert full in verbose


# --- kb eval -----------------------------------------------------------------------------------


def _eval_pack(root: Path) -> list[str]:
    """A real P2P incident stored twice: once under its own case (named first: passes) and
    once relabelled as a near miss of that case (the case still matches: a failure)."""
    case = root / "nccl-p2p-consumer-gpu-hang"
    text = (P2P / "case.kb").read_text(encoding="utf-8")
    (case).mkdir(parents=True)
    (case / "case.kb").write_text(text[: text.index('\n  fixture "')] + "\n}\n")
    source = P2P / "fixtures" / "positive" / "gh-nccl-tests-117-rtx4090x2-allreduce-perf-hang"
    for kind, name, label, near in (
        ("positive", "right", "nccl-p2p-consumer-gpu-hang", "null"),
        ("negative", "near", "none", "nccl-p2p-consumer-gpu-hang"),
    ):
        target = case / "fixtures" / kind / name
        shutil.copytree(source, target)
        (target / "incident.yaml").write_text(
            f"source: https://example.org/{name}\ncase: {label}\nnear_miss_of: {near}\n"
            "status: confirmed\nestablished: A relabelled copy for the test.\n",
            encoding="utf-8",
        )
    return ["--no-bundled", "--cases", str(root)]


def test_kb_eval_quiet_shows_the_misses_and_one_summary_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = _eval_pack(tmp_path)
    full = _out(["eval", *pack], capsys, 0)
    assert "Confusion (expected → named first)" in full
    quiet = _out(["eval", "-q", *pack], capsys, 0)
    assert "Confusion (expected → named first)" not in quiet
    misses = [line for line in quiet if line.lstrip().startswith("✘")]
    assert len(misses) == 1 and "near:" in misses[0]
    assert not any(line.lstrip().startswith("✔") for line in quiet)
    assert quiet[-1].startswith("2 real incidents")
    assert "top-1 100.0%" in quiet[-1] and "near misses at likely or better 100.0%" in quiet[-1]


def test_kb_eval_verbose_lists_every_incident(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = _eval_pack(tmp_path)
    verbose = _out(["eval", "--verbose", *pack], capsys, 0)
    marks = sorted(line.lstrip()[0] for line in verbose if line.lstrip()[:1] in ("✔", "✘"))
    assert marks == ["✔", "✘"]
