"""`kb new`: the blank scaffold, refusals, redaction, templates and drafts that pass."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from dsl.api import load_cases
from kb.cli.main import main
from kb.redact.fixture import FixtureRedactor as Redactor
from kb.scaffold.draft import log_queries
from kb.scaffold.templates import template_of

RANK0 = """\
2024-05-02 10:11:12,345 - INFO - Starting training on gpu-node-07.cluster.local
gpu-node-07:48213:48213 [0] NCCL INFO Bootstrap : Using ib0:10.12.3.4<0>
gpu-node-07:48213:48290 [0] NCCL INFO comm 0x55d3a8c0 rank 0 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE
gpu-node-07:48213:48295 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.12.3.5<54122> with error 12, opcode 0, len 0, vendor err 129 (Recv)
[rank0]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 0] ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.
HF_TOKEN=hf_QwErTyUiOpAsDfGhJkLzXcVbNm123456
Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.secret
"""


@pytest.fixture()
def evidence(tmp_path: Path) -> Path:
    folder = tmp_path / "evidence" / "IB Run"
    folder.mkdir(parents=True)
    (folder / "rank0.log").write_text(RANK0, encoding="utf-8")
    rank1 = (
        RANK0.replace("gpu-node-07", "gpu-node-08")
        .replace("10.12.3.4", "10.12.3.9")
        .replace("[0]", "[1]")
        .replace("rank0", "rank1")
        .replace("Rank 0", "Rank 1")
    )
    (folder / "rank1.log").write_text(rank1, encoding="utf-8")
    (folder / "pip-freeze.txt").write_text("torch==2.3.1\naccelerate==0.30.1\n", encoding="utf-8")
    return folder


def test_blank_scaffold_is_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "my-new-case", "--cases", str(tmp_path)]) == 0
    folder = tmp_path / "my-new-case"
    assert (folder / "fixtures" / "positive" / ".gitkeep").is_file()
    assert (folder / "fixtures" / "negative" / ".gitkeep").is_file()
    result = load_cases([tmp_path], with_env=False)
    assert result.ok, result.diagnostics  # it parses and validates: only the prose is missing
    capsys.readouterr()
    assert main(["check", str(tmp_path)]) == 1  # a scaffold is a draft until it is written
    out = capsys.readouterr().out
    assert "lint/missing-metadata" not in out  # codes are not printed; messages are
    assert "is missing title, summary, severity, components, references, provenance" in out
    assert "error: title is still a placeholder" in out
    assert "error: evidence `first_error` pattern is still a placeholder" in out


@pytest.mark.parametrize("bad", ["My_Case", "case-", "Case", "a--b"])
def test_refuses_non_kebab_id(tmp_path: Path, bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", bad, "--cases", str(tmp_path)]) == 2
    assert "not kebab-case" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_refuses_existing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "taken").mkdir()
    assert main(["new", "taken", "--cases", str(tmp_path)]) == 2
    assert "already exists" in capsys.readouterr().err


def test_refuses_missing_evidence(tmp_path: Path) -> None:
    assert (
        main(["new", "x-case", "--cases", str(tmp_path), "--from-evidence", str(tmp_path / "nope")])
        == 2
    )


def test_redaction_is_consistent_across_files() -> None:
    r = Redactor()
    a = "gpu-node-07:1:2 [0] NCCL INFO Using ib0:10.12.3.4<0>\nMASTER_ADDR=gpu-node-07\n"
    b = "  host      : gpu-node-07.cluster.local\npeer 10.12.3.4 and 10.12.3.5 fe80::1ff:fe23:1\n"
    for text in (a, b):
        r.learn_hosts(text)
    ra, rb = r.redact(a), r.redact(b)
    assert ra == "host-1:1:2 [0] NCCL INFO Using ib0:192.0.2.1<0>\nMASTER_ADDR=host-1\n"
    assert rb == "  host      : host-1\npeer 192.0.2.1 and 192.0.2.2 2001:db8::1\n"
    assert r.redact_path("nccl.gpu-node-07.77.log") == "nccl.host-1.77.log"


@pytest.mark.parametrize(
    "secret, kept",
    [
        ("HF_TOKEN=hf_QwErTyUiOpAsDfGhJkLzXcVbNm123456", "HF_TOKEN="),
        ("token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "token ghp_REDACTED"),
        ("key AKIAIOSFODNN7EXAMPLE", "key AKIAREDACTED"),
        ("db password=hunter2", "db password=[REDACTED]"),
        ("Authorization: Basic dXNlcjpwYXNz", "Authorization: [REDACTED]"),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
            "[REDACTED PRIVATE KEY]",
        ),
    ],
)
def test_secrets_are_redacted(secret: str, kept: str) -> None:
    out = Redactor().redact(secret)
    assert kept in out
    assert not re.search(r"QwErTy|abcdefghij|IOSFODNN|hunter2|dXNlcjpw|MIIEow", out)


def test_versions_times_and_package_pins_survive() -> None:
    text = "tokenizers==0.19.1 at 12:30:01 max_tokens: 512 NCCL version 2.20.5+cuda12.4 127.0.0.1"
    assert Redactor().redact(text) == text


def test_template_generalises_variable_parts() -> None:
    line = (
        "[rank3]:[E ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=1, OpType=ALLGATHER, NumelIn=292, NumelOut=1168, "
        "Timeout(ms)=1800000) ran for 1800697 milliseconds before timing out."
    )
    pattern, _ = template_of(line) or ("", 0)
    assert pattern.startswith(
        r"Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=\d+,"
    )
    assert r"Timeout\(ms\)=\d+\)" in pattern
    other = (
        line.replace("rank3", "rank0").replace("Rank 3", "Rank 0").replace("SeqNum=1", "SeqNum=77")
    )
    assert template_of(other) == template_of(line)


def test_template_keeps_error_codes_and_escapes() -> None:
    pattern, _ = template_of(
        "EI0002: The wait execution of the Notify register times out. "
        "at 0x7f00ab12 in /usr/local/Ascend/lib/libhccl.so"
    ) or ("", 0)
    assert pattern.startswith("EI0002: The wait execution")
    assert r"times out\. at 0x[0-9a-fA-F]+ in" in pattern
    assert "/usr" not in pattern


def test_from_evidence_drafts_a_case_that_checks_and_tests(
    tmp_path: Path, evidence: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "pack"
    assert (
        main(
            [
                "new",
                "ib-remote-error-draft",
                "--cases",
                str(cases),
                "--from-evidence",
                str(evidence),
            ]
        )
        == 0
    )
    folder = cases / "ib-remote-error-draft"
    fixture = folder / "fixtures" / "positive" / "ib-run"
    copied = (fixture / "rank0.log").read_text(encoding="utf-8")
    assert "gpu-node" not in copied and "10.12.3" not in copied and "QwErTy" not in copied
    assert "host-1:48213:48295 [0]" in copied and "peer 192.0.2.2<54122>" in copied
    assert "host-2:48213" in (fixture / "rank1.log").read_text(encoding="utf-8")
    text = (folder / "case.kb").read_text(encoding="utf-8")
    assert "evidence q1: log {" in text
    assert r"pattern /ncclRemoteError: A call failed possibly due to a network error" in text
    assert r"NCCL WARN NET\/IB : Got completion from peer \d+\.\d+\.\d+\.\d+<\d+>" in text
    assert 'requires "torch==2.3.1"' in text
    assert "require q1" in text
    capsys.readouterr()
    assert main(["check", str(cases)]) == 1  # the TODOs are errors until written
    out = capsys.readouterr().out
    assert "error: title is still a placeholder" in out
    assert "generic lines" not in out  # what it requires tells this failure apart
    written = re.sub(r"TODO:?", "Written:", text).replace("[Written]", "[nccl]")
    (folder / "case.kb").write_text(written, encoding="utf-8")
    assert main(["check", str(cases)]) == 0
    assert " 0 error(s)" in capsys.readouterr().out
    assert main(["test", "--cases", str(cases), "ib-remote-error-draft"]) == 0
    assert "1 passed, 0 failed" in capsys.readouterr().out.splitlines()


def test_from_archive(tmp_path: Path, evidence: Path) -> None:
    import tarfile

    archive = tmp_path / "ib-logs.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(evidence, arcname="run")
    cases = tmp_path / "pack"
    assert (
        main(["new", "ib-archive-draft", "--cases", str(cases), "--from-evidence", str(archive)])
        == 0
    )
    copied = sorted(p.relative_to(cases).as_posix() for p in cases.rglob("*.log"))
    assert copied == [
        "ib-archive-draft/fixtures/positive/ib-logs/run/rank0.log",
        "ib-archive-draft/fixtures/positive/ib-logs/run/rank1.log",
    ]


def test_an_id_with_a_newline_or_too_long_is_refused(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from kb.cli.main import main as kb_main

    for bad in ("abc\n", "a" * 300):
        assert kb_main(["new", bad, "--cases", str(tmp_path)]) == 2
        assert "Traceback" not in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_bomb_in_the_evidence_is_skipped_and_leaves_no_half_case(
    tmp_path: Path, evidence: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import gzip

    with gzip.open(evidence / "rank2.log.gz", "wb") as out:
        out.write(b"A" * (64 * 1024 * 1024))  # 64 MiB of one byte: a ratio no log has
    assert main(
        ["new", "bomb-case", "--cases", str(tmp_path), "--from-evidence", str(evidence)]
    ) in (0, 1)
    out = capsys.readouterr()
    assert "decompression bomb" in out.out + out.err and "Traceback" not in out.err
    assert (tmp_path / "bomb-case" / "case.kb").is_file()  # the other files made a draft

    only_bomb = tmp_path / "only-bomb"
    only_bomb.mkdir()
    (evidence / "rank2.log.gz").rename(only_bomb / "rank0.log.gz")
    assert (
        main(["new", "bomb-only", "--cases", str(tmp_path), "--from-evidence", str(only_bomb)]) == 2
    )
    assert not (tmp_path / "bomb-only").exists()  # nothing half-made blocks the id


def test_a_fresh_case_and_a_fresh_draft_pass_fmt_check(
    tmp_path: Path, evidence: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["new", "fmt-blank", "--cases", str(tmp_path)]) == 0
    assert (
        main(["new", "fmt-draft", "--cases", str(tmp_path), "--from-evidence", str(evidence)]) == 0
    )
    capsys.readouterr()
    assert main(["fmt", "--check", str(tmp_path)]) == 0, capsys.readouterr()


def test_without_a_cases_folder_it_makes_one_here_not_in_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from dsl.api import DEFAULT_CASES

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KB_CASES", raising=False)
    assert main(["new", "made-here"]) == 0
    assert (tmp_path / "cases" / "made-here" / "case.kb").is_file()
    assert not (DEFAULT_CASES / "made-here").exists()
    assert f"made {tmp_path / 'cases'}/" in capsys.readouterr().out


def test_a_closed_pipe_does_not_delete_the_case(tmp_path: Path, evidence: Path) -> None:
    """`kb new … | head -1`: the reader is gone before the report is written."""
    import os
    import subprocess
    import sys

    for case_id, extra in (("pipe-blank", []), ("pipe-draft", ["--from-evidence", str(evidence)])):
        read_end, write_end = os.pipe()
        os.close(read_end)  # every write to stdout fails with EPIPE, deterministically
        try:
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "kb.cli.main",
                    "new",
                    case_id,
                    "--cases",
                    str(tmp_path),
                    *extra,
                ],
                stdout=write_end,
                stderr=subprocess.PIPE,
                text=True,
                check=False,
            )
        finally:
            os.close(write_end)
        assert (tmp_path / case_id / "case.kb").is_file(), done.stderr
        assert "Traceback" not in done.stderr and "nothing was kept" not in done.stderr
        assert "BrokenPipe" not in done.stderr


def test_a_traceback_header_is_never_what_a_draft_requires() -> None:
    from types import SimpleNamespace

    from kb.scaffold.draft import log_queries

    lines = [
        "Traceback (most recent call last):",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
    ] * 3 + ["KeyError: 'vision_tower' in the model config"]
    facts = SimpleNamespace(
        suspicious=[
            SimpleNamespace(file=f"r{i % 2}.log", line=i, text=t) for i, t in enumerate(lines)
        ],
        watchdog_timeouts=[],
        mismatches=[],
        process_failures=[],
    )
    queries = log_queries(facts, {})
    assert len(queries) == 3  # the generic lines are still offered, as support
    assert [(q.name, q.role, q.body[1]) for q in queries if q.role == "require"] == [
        ("q1", "require", "pattern /KeyError: 'vision_tower' in the model config/")
    ]


def test_a_drafts_patterns_hold_no_colour_codes() -> None:
    """A line in colour (rich, colorlog) that only the draft's own scan picks up: its pattern
    is what the terminal showed, which is what the reader matches."""
    facts = SimpleNamespace(suspicious=[], watchdog_timeouts=[], mismatches=[], process_failures=[])
    texts = {"rank0.log": "step 3\n\x1b[31mtorch.distributed.DistBackendError: \x1b[1m"
             "ncclSystemError\x1b[0m: System call (e.g. socket, malloc) failed\n"}  # fmt: skip
    (query,) = log_queries(facts, texts)
    pattern = next(line for line in query.body if line.startswith("pattern "))
    assert "ncclSystemError: System call" in pattern
    assert "\x1b" not in pattern and "[31m" not in pattern and "[0m" not in pattern
