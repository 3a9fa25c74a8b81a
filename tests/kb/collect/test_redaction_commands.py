"""The redaction corpus through the three commands that write what users share, each run as a
user runs it: `kb run` (a job prints it), `kb collect` (`pip freeze` prints it, a SLURM JWT in
the environment) and `kb new --from-evidence` (a log holding it becomes a fixture). Benign lines
come out as they went in; no 8-byte window of a secret is left in any file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from launch_fakes import KB, REPO, base_env, tool
from redaction_cases import ALL_SECRETS, BENIGN, BENIGN_THEN_SECRETS, kept

KEY = "3f9c1a7b2e8d4f60a1b2c3d4e5f6"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdW4iOiJzbHVybS1jb3JwdXMifQ.c2x1cm1jb3JwdXNzaWduYXR1cmU"
# the words the issue found removed, in a log kb new copies (its host names change, these not)
ISSUE_WORDS = ["max_new_tokens: 512", "num_tokens=4096", "--max_tokens 512", "tokenizers==0.20.3",
               "asttokens==2.4.1", "TOKENIZERS_PARALLELISM=false", "pad_token_id: 0",
               "pad_token: <pad>"]  # fmt: skip


def _files(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_text(encoding="utf-8", errors="replace")
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _leaks(root: Path, secrets: list[str]) -> dict[str, list[str]]:
    found = {name: kept(text, secrets) for name, text in _files(root).items()}
    return {name: [s[:12] + "…" for s in k] for name, k in found.items() if k}


def test_kb_run_keeps_what_the_job_printed_but_its_secrets(tmp_path: Path) -> None:
    printed = tmp_path / "printed.txt"
    printed.write_text(BENIGN_THEN_SECRETS, encoding="utf-8")
    bundle = tmp_path / "b"
    script = "import sys; sys.stdout.write(open(sys.argv[1], encoding='utf-8').read())"
    proc = subprocess.run(
        [*KB, "run", "--bundle", str(bundle), "--", sys.executable, "-c", script, str(printed)],
        cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True,
        timeout=180,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    log = (bundle / "logs" / "launcher.stdout.log").read_text(encoding="utf-8")
    assert log.splitlines()[: len(BENIGN)] == BENIGN
    assert not _leaks(bundle, ALL_SECRETS)
    assert "kb run: redacted" in proc.stderr and "private key" in proc.stderr


def test_kb_collect_keeps_package_names_but_no_secret(tmp_path: Path) -> None:
    bin_dir, home = tmp_path / "bin", tmp_path / "home"
    env = base_env(bin_dir, home)
    env["SLURM_JWT"] = JWT
    env["NCCL_PLUGIN_KEY"] = KEY  # a KEY is masked for its value's look: named all the same
    (tmp_path / "freeze.txt").write_text(BENIGN_THEN_SECRETS, encoding="utf-8")
    python = tool(
        bin_dir, "fakepython", f'[ "$2" = pip ] && exec cat {tmp_path}/freeze.txt\nexit 1'
    )
    out = tmp_path / "bundle"
    proc = subprocess.run(
        [*KB, "collect", "-o", str(out), "--python", str(python)],
        env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    freeze = (out / "pip-freeze.txt").read_text(encoding="utf-8")
    assert freeze.splitlines()[: len(BENIGN)] == BENIGN
    assert "SLURM_JWT=[REDACTED]" in (out / "env.txt").read_text(encoding="utf-8")
    assert not _leaks(out, [*ALL_SECRETS, JWT, KEY])
    assert "NCCL_PLUGIN_KEY (secret variable)" in proc.stdout
    assert "SLURM_JWT (secret variable)" in proc.stdout


def test_kb_new_copies_config_words_but_no_secret(tmp_path: Path) -> None:
    evidence = tmp_path / "run"
    evidence.mkdir()
    error = (
        "[rank0]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 0] ncclRemoteError: A call failed "
        "possibly due to a network error or a remote process exiting prematurely.\n"
    )
    (evidence / "rank0.log").write_text(error + BENIGN_THEN_SECRETS, encoding="utf-8")
    cases = tmp_path / "pack"
    proc = subprocess.run(
        [*KB, "new", "remote-error-draft", "--cases", str(cases), "--from-evidence", str(evidence)],
        cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True,
        timeout=180,
    )  # fmt: skip
    fixture = cases / "remote-error-draft" / "fixtures" / "positive" / "run"
    assert (fixture / "rank0.log").is_file(), proc.stdout + proc.stderr
    copied = (fixture / "rank0.log").read_text(encoding="utf-8").splitlines()
    assert [w for w in ISSUE_WORDS if w not in copied] == []
    assert not _leaks(cases, ALL_SECRETS)
