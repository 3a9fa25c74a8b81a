"""Issue 29: a bundle made by `kb collect` on a machine seeded with every secret shape of the
redaction corpus (`tests/kb/collect/redaction_corpus/`) holds none of them, while the benign
look-alikes of the same corpus come through unchanged.

The machine is faked, never the real one: a temporary HOME (`~/.nccl.conf`, the accelerate
config), an environment of our own, and stub tools first on PATH (`accelerate env`, `conda
list`, `dmesg`, the job's `python` for `pip freeze` and `collect_env`) that print the corpus.
Every file of the bundle, and its name, is searched for every 8-byte window of every secret.
"""

from __future__ import annotations

import os
import shlex
import sys
import tarfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kb" / "collect"))
from launch_fakes import base_env, tool
from redaction_cases import ALL_SECRETS, BENIGN, BENIGN_THEN_SECRETS, SECRETS, kept

from kb.cli.main import main

# what each seeded capture must hold after redaction (so that a dropped file cannot pass)
SEEDED_FILES = [
    "nccl-conf.txt",
    "accelerate-config/default_config.yaml",
    "accelerate-env.txt",
    "conda-list.txt",
    "pip-freeze.txt",
    "collect-env.txt",
]
# a kernel log line is one line: the one-line shapes, behind a prefix `kb collect` keeps
ONE_LINE = [text.rstrip("\n") for text, _ in SECRETS if text.count("\n") == 1]
LOG_PREFIX = "[ 1234.567890] NVRM: job said: "


def _seed_files(tmp_path: Path) -> dict[str, str]:
    """A HOME and stub tools holding every secret case and every benign line; the env."""
    bin_dir, home = tmp_path / "bin", tmp_path / "home"
    env = base_env(bin_dir, home)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(BENIGN_THEN_SECRETS, encoding="utf-8")
    log = tmp_path / "kernel.log"
    log.write_text(
        "".join(f"{LOG_PREFIX}{line}\n" for line in [*BENIGN, *ONE_LINE]), encoding="utf-8"
    )
    (home / ".nccl.conf").write_text(BENIGN_THEN_SECRETS, encoding="utf-8")
    accelerate = home / ".cache" / "huggingface" / "accelerate"
    accelerate.mkdir(parents=True)
    (accelerate / "default_config.yaml").write_text(BENIGN_THEN_SECRETS, encoding="utf-8")
    cat = f"exec cat {shlex.quote(str(corpus))}"
    tool(bin_dir, "accelerate", cat)
    tool(bin_dir, "conda", cat)
    tool(bin_dir, "dmesg", f"exec cat {shlex.quote(str(log))}")
    tool(bin_dir, "python", cat)  # pip freeze, collect_env and the version probe alike
    return env


def _seed_environment(env: dict[str, str]) -> dict[str, str]:
    """Every secret case as the value of a job variable `kb collect` keeps (neutral names, so
    the value's shape is what must give it away), plus benign job variables."""
    for k, (text, _) in enumerate(SECRETS):
        env[f"NCCL_CORPUS_NOTE_{k}"] = text.rstrip("\n")
    env["NCCL_DEBUG"] = "INFO"
    env["NCCL_SOCKET_IFNAME"] = "eth0"
    return env


def _collect(
    env: dict[str, str], out: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> str:
    """`kb collect -o out` in this process, under `env` only; what it printed."""
    for name in list(os.environ):
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    python = str(Path(env["PATH"].split(":")[0]) / "python")
    assert main(["collect", "-o", str(out), "--python", python, "--timeout", "60"]) == 0
    printed = capsys.readouterr()
    return printed.out + printed.err


def _bundle_files(out: Path, tmp_path: Path) -> dict[str, str]:
    """Every file of a folder bundle, or of a .tar.gz once extracted, by relative name."""
    if out.name.endswith(".tar.gz"):
        root = tmp_path / "extracted"
        with tarfile.open(out) as tar:
            tar.extractall(root, filter="data")
        (top,) = list(root.iterdir())
        out = top
    return {
        str(p.relative_to(out)): p.read_text(encoding="utf-8", errors="replace")
        for p in sorted(out.rglob("*"))
        if p.is_file()
    }


def _assert_no_secret(files: dict[str, str], printed: str) -> None:
    assert set(SEEDED_FILES) <= set(files), sorted(files)
    for name, text in files.items():
        leaked = kept(name + "\n" + text, ALL_SECRETS)
        assert not leaked, f"{name} keeps part of {[s[:12] + '…' for s in leaked[:5]]}"
    assert not kept(printed, ALL_SECRETS)


@pytest.mark.parametrize("bundle", ["bundle", "bundle.tar.gz"])
def test_a_machine_seeded_with_every_secret_shape_gives_a_bundle_without_them(
    bundle: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    """Environment, gathered files, tool outputs and kernel log lines all seeded at once."""
    env = _seed_environment(_seed_files(tmp_path))
    out = tmp_path / bundle
    printed = _collect(env, out, monkeypatch, capsys)
    files = _bundle_files(out, tmp_path)
    _assert_no_secret(files, printed)
    assert "NCCL_DEBUG=INFO\n" in files["env.txt"]
    assert "NCCL_SOCKET_IFNAME=eth0\n" in files["env.txt"]
    for k in range(len(SECRETS)):  # the variables are named, their values masked
        assert f"NCCL_CORPUS_NOTE_{k}=" in files["env.txt"]


def test_the_files_alone_are_redacted_by_the_shape_of_their_secrets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """With no secret in the environment the redactor cannot learn a value there first: the
    shapes alone must remove them, and every benign look-alike stays as it was."""
    env = _seed_files(tmp_path)
    out = tmp_path / "bundle"
    printed = _collect(env, out, monkeypatch, capsys)
    files = _bundle_files(out, tmp_path)
    _assert_no_secret(files, printed)
    for name in SEEDED_FILES:
        lines = set(files[name].splitlines())
        lost = [line for line in BENIGN if line not in lines]
        assert not lost, f"{name} lost benign line(s) {lost[:3]}"
    log = set(files["dmesg.txt"].splitlines())
    assert all(f"{LOG_PREFIX}{line}" in log for line in BENIGN)
    assert not kept(files["dmesg.txt"], [s for t, ss in SECRETS for s in ss if t.count("\n") == 1])
