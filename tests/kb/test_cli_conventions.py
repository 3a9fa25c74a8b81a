"""The conventions every `kb` sub-command keeps: a positional evidence PATH (or `--evidence`,
never both), `-` for stdin, `kb --version`, help for every option, exit codes in each
command's `--help`, and usage errors that show the sub-command's own usage line."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from remote_error_pack import ERROR, remote_error_case

from kb.cli.main import COMMANDS, build_parser, main
from kb.cli.options import HelpFormatter, exit_status

ROOT = Path(__file__).resolve().parents[2]
CASE = remote_error_case("cli-conv-remote-error", known_gap=False)


@pytest.fixture
def pack(tmp_path: Path) -> list[str]:
    """A one-case pack, so `kb diagnose` compiles one small case rather than the bundled 40."""
    folder = tmp_path / "pack" / "cli-conv-remote-error"
    folder.mkdir(parents=True)
    (folder / "case.kb").write_text(CASE, encoding="utf-8")
    return ["--no-bundled", "--cases", str(tmp_path / "pack")]


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "rank1.log"
    path.write_text(ERROR, encoding="utf-8")
    return path


def _kb(args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kb.cli.main", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _usage_error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    return capsys.readouterr().err


# --- a positional PATH for diagnose; --evidence kept; both = usage error ---------------------


def test_diagnose_takes_a_positional_path(
    pack: list[str], log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diagnose", str(log), "--format", "json", *pack]) == 0
    assert json.loads(capsys.readouterr().out)["matches"][0]["id"] == "cli-conv-remote-error"


def test_diagnose_still_takes_evidence_option(
    pack: list[str], log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diagnose", "-e", str(log), "--format", "json", *pack]) == 0
    assert json.loads(capsys.readouterr().out)["matches"][0]["id"] == "cli-conv-remote-error"


def test_diagnose_with_both_forms_is_a_usage_error_that_says_so(
    pack: list[str], log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _usage_error(["diagnose", str(log), "--evidence", str(log), *pack], capsys)
    assert err.startswith("usage: kb diagnose ")
    assert "not allowed with argument" in err


def test_diagnose_without_evidence_is_a_usage_error(
    pack: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    err = _usage_error(["diagnose", *pack], capsys)
    assert err.startswith("usage: kb diagnose ")
    assert "PATH" in err.splitlines()[-1]


def test_diagnose_reads_stdin_from_a_positional_dash(pack: list[str]) -> None:
    proc = _kb(["diagnose", "-", "--format", "json", *pack], stdin=ERROR)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["matches"][0]["id"] == "cli-conv-remote-error"


# --- kb evidence: both forms ------------------------------------------------------------------


def test_evidence_accepts_the_evidence_option(
    log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["evidence", "--evidence", str(log), "--format", "json"]) == 0
    by_option = json.loads(capsys.readouterr().out)
    assert main(["evidence", str(log), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == by_option
    assert [f["path"] for f in by_option["facts"]["files"]] == ["rank1.log"]


def test_evidence_with_both_forms_is_a_usage_error(
    log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _usage_error(["evidence", str(log), "-e", str(log)], capsys)
    assert err.startswith("usage: kb evidence ") and "not allowed with argument" in err


def test_evidence_reads_stdin() -> None:
    proc = _kb(["evidence", "-e", "-", "--format", "json"], stdin=ERROR)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["facts"]["files"]


def test_export_jsonl_reads_stdin(tmp_path: Path) -> None:
    out = tmp_path / "lines.jsonl"
    proc = _kb(["export", "jsonl", "--evidence", "-", "-o", str(out)], stdin=ERROR)
    assert proc.returncode == 0, proc.stderr
    (record,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert record["line"] == ERROR.rstrip("\n")


def test_new_drafts_from_stdin(tmp_path: Path) -> None:
    cases = tmp_path / "drafts"
    proc = _kb(["new", "cli-stdin-draft", "--cases", str(cases), "--from-evidence", "-"], ERROR)
    assert proc.returncode in (0, 1), proc.stderr  # 1: a draft that does not yet pass itself
    copied = cases / "cli-stdin-draft" / "fixtures" / "positive" / "stdin" / "stdin"
    assert copied.read_text(encoding="utf-8") == ERROR
    assert "ToyRemoteError" in (cases / "cli-stdin-draft" / "case.kb").read_text()


# --- usage errors show the sub-command's own usage line --------------------------------------


def test_unknown_option_shows_the_sub_commands_usage(
    log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _usage_error(["evidence", str(log), "--no-such-option"], capsys)
    assert err.startswith("usage: kb evidence ")
    assert "{evidence}" not in err
    assert "unrecognized arguments: --no-such-option" in err


# --- kb --version -----------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_comes_from_the_package_metadata(
    flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([flag]) == 0
    assert capsys.readouterr().out == f"kb {version('distkb')}\n"


def test_version_imports_neither_the_language_nor_the_reader() -> None:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "kb.cli.main", "--version"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0 and proc.stdout.startswith("kb ")
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()}
    assert "kb.cli.options" in imported  # the import-time report is there to be read
    heavy = sorted(m for m in imported if m.startswith(("lark", "dsl.", "kb.evidence")))
    assert heavy == ["dsl.runtime"]  # what `kb/__init__` hands the language: no parser


def test_top_level_help_lists_version() -> None:
    assert "--version" in build_parser().format_help()


# --- help for every option, exit codes in every --help ---------------------------------------


def test_every_option_of_every_command_has_help() -> None:
    bare = [
        f"kb {name} {'/'.join(a.option_strings) or a.dest}"
        for name, parser in _subparsers().items()
        for a in parser._actions
        if not a.help or a.help == argparse.SUPPRESS
    ]
    assert bare == []


def test_every_command_is_in_the_walk() -> None:
    assert set(_subparsers()) == set(COMMANDS)


def test_every_commands_help_documents_its_exit_codes() -> None:
    missing = []
    for name, parser in _subparsers().items():
        text = parser.format_help()
        if "exit status:" not in text or not ("\n  2 " in text or "usage error" in text):
            missing.append(name)
    assert missing == []


def test_exit_codes_are_listed_one_per_line() -> None:
    text = _subparsers()["diagnose"].format_help()
    tail = text[text.index("exit status:") :].splitlines()
    assert [line.split()[0] for line in tail[1:4]] == ["0", "1", "2"]


def test_descriptions_wrap_flush_left_and_exit_codes_hang() -> None:
    formatter = HelpFormatter("kb")
    prose = formatter._fill_text("word " * 30, 40, "")
    assert len(prose.splitlines()) > 1 and not any(line[:1] == " " for line in prose.splitlines())
    codes = formatter._fill_text(exit_status((3, "word " * 20)), 40, "").splitlines()
    assert codes[0] == "exit status:" and codes[1].startswith("  3  word")
    assert all(line.startswith("      word") for line in codes[2:]) and len(codes) > 2
