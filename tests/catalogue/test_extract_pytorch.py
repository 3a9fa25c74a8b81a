"""scripts/catalogue/extract_pytorch.py on a tiny fake PyTorch tree (work tree and git revision)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "catalogue" / "extract_pytorch.py"


def _load():
    spec = importlib.util.spec_from_file_location("extract_pytorch", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["extract_pytorch"] = module
    spec.loader.exec_module(module)
    return module


extract_pytorch = _load()

PROCESS_GROUP_NCCL = r"""
void ProcessGroupNCCL::watchdog() {
  // TORCH_CHECK(false, "a commented-out message must not be listed");
  LOG(ERROR) << logPrefix()
             << "Some NCCL operations have failed or timed out. Due to the "
             << "asynchronous nature of CUDA kernels, subsequent GPU operations "
             << "might run on corrupted/incomplete data.";
  TORCH_CHECK(false, "Detected mismatch between collectives on ranks. Rank ",
              rank, " is running collective: ", fingerprint);
  C10_THROW_ERROR(DistBackendError, "Tensors must be CUDA and dense");
  auto msg = fmt::format("wait timeout after {}ms, keys: {}", ms, keys);
  TORCH_CHECK(x > 0, "short");
}
"""

ELASTIC = """
import logging
logger = logging.getLogger(__name__)

def close(pid, sig, rank):
    logger.warning("Sending process %s closing signal %s", pid, sig)
    logger.error("failed (exitcode: %d) local_rank: %s", -9, rank)
    raise RuntimeError(f"Rank {rank} exhausted all inputs.")

def barrier(rank, key):
    raise RuntimeError(
        "Timed out initializing process group in store based barrier on "
        "rank: {}, for key: {}".format(rank, key)
    )

def other():
    print("not a message call at all, even with enough text")
"""


def _tree(root: Path) -> Path:
    (root / "torch/csrc/distributed/c10d").mkdir(parents=True)
    (root / "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp").write_text(PROCESS_GROUP_NCCL)
    (root / "torch/distributed/elastic").mkdir(parents=True)
    (root / "torch/distributed/elastic/api.py").write_text(ELASTIC)
    return root


def _templates(root: Path, rev: str | None = None) -> dict[str, tuple[str, int]]:
    found = extract_pytorch.extract(extract_pytorch.PyTorchTree(root, rev))
    return {m.template: (m.kind, m.line) for m in found}


def test_cpp_calls_and_log_streams_become_templates(tmp_path):
    found = _templates(_tree(tmp_path))
    assert found[
        "Detected mismatch between collectives on ranks. Rank {_} is running collective: {_}"
    ] == (
        "TORCH_CHECK",
        8,
    )
    assert found["Tensors must be CUDA and dense"] == ("C10_THROW_ERROR", 10)
    assert found["wait timeout after {_}ms, keys: {_}"][0] == "fmt::format"
    stream = (
        "{_}Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA "
        "kernels, subsequent GPU operations might run on corrupted/incomplete data."
    )
    assert found[stream] == ("LOG(ERROR)", 4)
    assert not any("commented-out" in t for t in found)
    assert "short" not in found  # under six fixed characters: no template


def test_python_raise_and_logging_become_templates(tmp_path):
    found = _templates(_tree(tmp_path))
    assert found["Sending process {_} closing signal {_}"] == ("logger.warning", 6)
    assert found["failed (exitcode: {_:int}) local_rank: {_}"] == ("logger.error", 7)
    assert found["Rank {_} exhausted all inputs."] == ("raise", 8)
    assert found[
        "Timed out initializing process group in store based barrier on rank: {_}, for key: {_}"
    ] == ("raise", 11)
    assert not any("not a message call" in t for t in found)


def test_templates_parse_with_the_catalogue_template_syntax(tmp_path):
    from dsl.catalogue.template import parse_template

    for template in _templates(_tree(tmp_path)):
        parse_template(template)  # raises on a template the catalogue could not use


@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed for --rev")
def test_a_git_revision_is_read_without_its_work_tree(tmp_path):
    repo = _tree(tmp_path / "repo")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "v1"], check=True)
    subprocess.run([*git, "tag", "v1"], check=True)
    (repo / "torch/distributed/elastic/api.py").write_text(
        "raise RuntimeError('a newer wording here')\n"
    )
    assert "Rank {_} exhausted all inputs." in _templates(repo, "v1")
    assert "Rank {_} exhausted all inputs." not in _templates(repo)


def test_cli_prints_path_line_kind_template_and_filters(tmp_path, capsys):
    root = _tree(tmp_path)
    assert extract_pytorch.main(["--repo", str(root), "--grep", "CLOSING SIGNAL"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "torch/distributed/elastic/api.py:6\tlogger.warning\tSending process {_} closing signal {_}"
    ]


def test_cli_says_what_is_wrong_without_a_traceback(tmp_path, capsys):
    assert extract_pytorch.main(["--repo", str(tmp_path / "missing")]) == 2
    assert "no such directory" in capsys.readouterr().err
    assert extract_pytorch.main(["--repo", str(tmp_path)]) == 1
    assert "no messages found" in capsys.readouterr().err
