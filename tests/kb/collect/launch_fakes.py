"""Fake tools on a PATH the test controls: small shell scripts that print what the real tool
printed on a real machine (the outputs are the repository's real-incident fixture files)."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
P2P = REPO / "cases/nccl-p2p-consumer-gpu-hang/fixtures"
RTX4090X2 = P2P / "positive/rtx4090x2-accelerate-prepare-nccl-info"
A100X8 = P2P / "negative/a100x8-nvlink-prepare-hang-filelock"
KB = [sys.executable, "-m", "kb.cli.main"]


def tool(bin_dir: Path, name: str, script: str) -> Path:
    """An executable `name` in `bin_dir` running the shell `script`."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + script + "\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def fake_nvidia_smi(bin_dir: Path, fixture: Path) -> Path:
    """`nvidia-smi` (table), `nvidia-smi topo -m` and `nvidia-smi -q` as on `fixture`'s machine."""
    table = shlex.quote(str(fixture / "nvidia-smi.txt"))
    topo = shlex.quote(str(fixture / "topo.txt"))
    return tool(
        bin_dir,
        "nvidia-smi",
        f"""
case "$1" in
  topo) exec cat {topo} ;;
  -q) echo "==============NVSMI LOG=============="; exit 0 ;;
  *) exec cat {table} ;;
esac""",
    )


def base_env(bin_dir: Path, home: Path) -> dict[str, str]:
    """A small environment: our fake tools first, then the system's, a HOME of our own."""
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "HOME": str(home),
        "LC_ALL": "C.UTF-8",
        "PYTHONPATH": str(REPO),
        # the compiled cases of the real cache: a fresh HOME must not mean a cold compile
        "KB_CACHE_DIR": os.environ.get("KB_CACHE_DIR")
        or str(Path.home() / ".cache" / "kb" / "compiled"),
    }
    home.mkdir(parents=True, exist_ok=True)
    if "VIRTUAL_ENV" in os.environ:
        env["VIRTUAL_ENV"] = os.environ["VIRTUAL_ENV"]
    return env
