"""A case pack outside the repository: tested by a plain `pytest` there (the pytest11 plugin)
and used by `kb diagnose --cases`. The pack is a team's own: a case for their in-house NCCL net
plugin, whose message no catalogued emitter prints (so the case's pattern is its own evidence)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # runs pytest, kb test and kb check on case packs as processes

CASE = """
case pack-ib-completion-error {
  title "Our ACME net plugin's completion error kills the job"
  summary "The in-house ACME net plugin reports a failed work completion (status 12), then ncclRemoteError."
  severity high
  tags [infiniband, network]
  components [nccl, torch]
  references ["https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html"]
  provenance {
    source "pack test"
    authors ["kb maintainers"]
  }
  symptom "NCCL WARN NET/ACME : completion failed … (status 12)" {
    shows [ib_completion_error, remote_error]
  }
  evidence ib_completion_error: log {
    pattern /NCCL WARN NET\\/ACME : completion failed on qp \\d+ \\(status \\d+\\)/
  }
  evidence remote_error: log {
    pattern /ncclRemoteError: A call failed/
  }
  match {
    require ib_completion_error
    support remote_error
  }
  remedy "Check the fabric" {
    step "Look at the port counters" {
      run ```bash
      ibstat; perfquery -x
      ```
      verify "symbol and link-down counters stay at 0 during a rerun"
    }
  }
}
"""
POSITIVE = """\
node-a:48213:48213 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:192.0.2.1<0>
node-a:48213:48290 [0] NCCL INFO comm 0x55d3a8c0 rank 0 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE
node-a:48213:48295 [0] acme_net.cc:120 NCCL WARN NET/ACME : completion failed on qp 7 (status 12)
node-a:48213:48295 [0] NCCL INFO transport/net.cc:1135 -> 6
[rank0]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 0] ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.
"""
NEGATIVE = """\
node-a:48213:48213 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:192.0.2.1<0>
node-a:48213:48290 [0] NCCL INFO comm 0x55d3a8c0 rank 0 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE
{'loss': 2.3412, 'learning_rate': 1e-05, 'epoch': 0.01}
{'loss': 2.1175, 'learning_rate': 2e-05, 'epoch': 0.02}
"""
CASE_ID = "pack-ib-completion-error"


@pytest.fixture()
def pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pack")
    assert Path(__file__).resolve().parents[2] not in root.resolve().parents
    folder = root / "cases" / CASE_ID
    for rel, text in (("positive/ib-retry-exceeded", POSITIVE), ("negative/healthy-ib", NEGATIVE)):
        (folder / "fixtures" / rel).mkdir(parents=True)
        (folder / "fixtures" / rel / "rank0.log").write_text(text, encoding="utf-8")
    (folder / "case.kb").write_text(CASE, encoding="utf-8")
    return root


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("KB_CASES", None)
    env.pop("PYTEST_ADDOPTS", None)
    return env


def _pytest(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider"],
        cwd=root,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_plain_pytest_collects_and_passes_the_pack(pack: Path) -> None:
    run = _pytest(pack)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "cases/pack-ib-completion-error/case.kb::compiles PASSED" in run.stdout
    assert "case.kb::positive/ib-retry-exceeded PASSED" in run.stdout
    assert "case.kb::negative/healthy-ib PASSED" in run.stdout
    assert "3 passed" in run.stdout


def test_broken_regex_fails_naming_case_and_fixture(pack: Path) -> None:
    case = pack / "cases" / CASE_ID / "case.kb"
    case.write_text(
        CASE.replace("completion failed on qp", "completions failed on qp"), encoding="utf-8"
    )
    run = _pytest(pack)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "case.kb::positive/ib-retry-exceeded FAILED" in run.stdout
    assert (
        f"case {CASE_ID}, fixture positive/ib-retry-exceeded" in run.stdout
        and f"expected {CASE_ID} to match, but it did not" in run.stdout
    ), run.stdout


def test_diagnose_with_cases_matches_the_pack_case(pack: Path) -> None:
    evidence = pack / "cases" / CASE_ID / "fixtures" / "positive" / "ib-retry-exceeded"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "kb.cli.main",
            "diagnose",
            "--cases",
            str(pack / "cases"),
            "--evidence",
            str(evidence),
            "--format",
            "json",
        ],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert [m["id"] for m in report["matches"]][:1] == [CASE_ID]


def test_kb_test_and_check_take_the_pack(pack: Path) -> None:
    cases = str(pack / "cases")
    for argv in (["test", "--cases", cases, CASE_ID], ["check", cases]):
        run = subprocess.run(
            [sys.executable, "-m", "kb.cli.main", *argv],
            env=_env(),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0, run.stdout + run.stderr
    env = _env() | {"KB_CASES": cases}
    run = subprocess.run(
        [sys.executable, "-m", "kb.cli.main", "test", CASE_ID],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "2 passed, 0 failed" in run.stdout.splitlines(), run.stdout + run.stderr


def test_a_fixture_path_never_leaves_its_case(pack: Path, tmp_path: Path) -> None:
    """A pack comes by pull request: `kb test` must not read, nor the site publish, files
    outside the case folder through a fixture name or a linked fixture folder."""
    from dsl.compiler import load_knowledge_base
    from kb.cli.main import main
    from kb.fixtures import fixtures_of

    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "token.log").write_text(
        "NCCL WARN NET/IB : Got completion from peer x with error 12\n", encoding="utf-8"
    )
    folder = pack / "cases" / CASE_ID
    (folder / "fixtures" / "negative" / "linked").symlink_to(secret, target_is_directory=True)
    kb = load_knowledge_base([pack / "cases"], with_env=False)
    (compiled,) = kb.cases
    paths = {s.path for s in fixtures_of(compiled.case)}
    assert paths == {"positive/ib-retry-exceeded", "negative/healthy-ib"}

    case_file = folder / "case.kb"
    text = case_file.read_text(encoding="utf-8").rstrip()
    case_file.write_text(
        text[:-1] + '  fixture "positive/../../../secret" {\n    expect match\n'
        '  }\n  fixture "/etc" {\n    expect no-match\n  }\n}\n',
        encoding="utf-8",
    )
    assert main(["check", str(case_file)]) == 1
    kb = load_knowledge_base([pack / "cases"], with_env=False)
    bad = [d for d in kb.diagnostics if d.code == "bad-fixture-path"]
    assert len(bad) == 2 and all(d.line > 30 and d.path.endswith("case.kb") for d in bad)
