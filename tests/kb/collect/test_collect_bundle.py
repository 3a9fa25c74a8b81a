"""`kb collect` end to end: a real archive, each capture classified by the evidence reader as
the kind it is, missing tools named, a hanging tool cut off by its timeout."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
from pathlib import Path

from launch_fakes import KB, RTX4090X2, base_env, fake_nvidia_smi, tool


def _collect(tmp_path: Path, env: dict[str, str], *extra: str) -> tuple[Path, str]:
    out = tmp_path / "bundle.tar.gz"
    proc = subprocess.run(
        [*KB, "collect", "-o", str(out), "--python", sys.executable, *extra],
        env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return out, proc.stdout


def _kinds(bundle: Path, env: dict[str, str]) -> dict[str, str]:
    proc = subprocess.run(
        [*KB, "evidence", "--format", "json", str(bundle)],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    files = json.loads(proc.stdout)["facts"]["files"]
    return {f["path"].rsplit("/", 1)[-1]: f["kind"] for f in files}


def test_bundle_captures_are_read_as_their_kind(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    fake_nvidia_smi(bin_dir, RTX4090X2)
    env = base_env(bin_dir, tmp_path / "home")
    env["NCCL_DEBUG"] = "INFO"
    bundle, _ = _collect(tmp_path, env)
    kinds = _kinds(bundle, env)
    assert kinds["pip-freeze.txt"] == "pip-freeze"
    assert kinds["nvidia-smi.txt"] == "nvidia-smi"
    assert kinds["nvidia-smi-topo.txt"] == "nvidia-topo"
    assert kinds["env.txt"] == "env-dump"
    with tarfile.open(bundle) as tar:
        names = [m.name for m in tar.getmembers()]
        assert all(n.startswith("bundle/") for n in names)
        member = tar.extractfile("bundle/collect-manifest.json")
        assert member is not None
        manifest = json.loads(member.read())
    by_file = {c["file"]: c for c in manifest["captures"]}
    assert by_file["nvidia-smi-topo.txt"]["command"] == "nvidia-smi topo -m"
    assert by_file["nvidia-smi-topo.txt"]["status"] == 0


def test_the_bundle_is_what_diagnose_reads(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    fake_nvidia_smi(bin_dir, RTX4090X2)
    env = base_env(bin_dir, tmp_path / "home")
    bundle, _ = _collect(tmp_path, env)
    proc = subprocess.run(
        [*KB, "evidence", str(bundle)], env=env, capture_output=True, text=True, timeout=120
    )
    assert "RTX 4090" in proc.stdout
    assert "PHB" in proc.stdout or "GPU0" in proc.stdout


def test_missing_tools_are_named_with_a_note(tmp_path: Path) -> None:
    env = base_env(tmp_path / "empty-bin", tmp_path / "home")
    bundle, stdout = _collect(tmp_path, env)
    assert "nvidia-smi.txt" in stdout and "not found: `nvidia-smi` is not on PATH" in stdout
    assert "not found: `npu-smi` is not on PATH" in stdout
    with tarfile.open(bundle) as tar:
        member = tar.extractfile("bundle/collect-manifest.json")
        assert member is not None
        manifest = json.loads(member.read())
        names = {m.name.split("/", 1)[1] for m in tar.getmembers()}
    notes = {c["file"]: c["note"] for c in manifest["captures"]}
    assert notes["nvidia-smi.txt"].startswith("not found")
    assert "nvidia-smi.txt" not in names  # nothing invented for a missing tool


def test_a_hanging_tool_is_cut_off_by_its_timeout(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    tool(bin_dir, "npu-smi", "echo 'npu-smi 23.0.rc3   Version: 23.0.rc3'; exec sleep 300")
    env = base_env(bin_dir, tmp_path / "home")
    bundle, stdout = _collect(tmp_path, env, "--timeout", "1")
    assert "npu-smi-info.txt" in stdout
    with tarfile.open(bundle) as tar:
        member = tar.extractfile("bundle/collect-manifest.json")
        assert member is not None
        manifest = json.loads(member.read())
    entry = next(c for c in manifest["captures"] if c["file"] == "npu-smi-info.txt")
    assert entry["note"].startswith("timed out after 1 s")
    assert entry["status"] is None


def test_an_existing_file_is_not_overwritten(tmp_path: Path) -> None:
    target = tmp_path / "bundle.tar.gz"
    target.write_bytes(b"keep me")
    env = base_env(tmp_path / "bin", tmp_path / "home")
    proc = subprocess.run([*KB, "collect", "-o", str(target)], env=env, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 2 and "exists" in proc.stderr
    assert target.read_bytes() == b"keep me"
