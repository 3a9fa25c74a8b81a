"""`kb preflight` on planted machines: fake tools on a PATH the test controls print what the
real tools printed on real machines (fixture files), real resource limits are lowered for the
child; a known-bad combination warns (exit 1) with its case and first remedy step, a clean
machine is silent (exit 0)."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from launch_fakes import A100X8, KB, REPO, RTX4090X2, base_env, fake_nvidia_smi, tool

pytestmark = pytest.mark.slow  # runs kb preflight as a process on planted machines

IBV_DEVINFO = REPO / (
    "cases/nccl-ib-completion-error/fixtures/positive/"
    "gh-nccl-426-v100x2-roce-bond-error12-gid-index/ibv_devinfo.txt"
)
IP_ADDR = """1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000
    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00
    inet 127.0.0.1/8 scope host lo
2: eth0@if12: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP group default
    link/ether 02:42:ac:11:00:02 brd ff:ff:ff:ff:ff:ff link-netnsid 0
    inet 172.17.0.2/16 brd 172.17.255.255 scope global eth0
"""


def _machine(tmp_path: Path, gpus: Path | None) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    if gpus is not None:
        fake_nvidia_smi(bin_dir, gpus)
    tool(bin_dir, "ip", f"cat <<'EOF'\n{IP_ADDR}EOF")
    return base_env(bin_dir, tmp_path / "home")


def _preflight(env: dict[str, str], memlock: int | None = None) -> tuple[int, dict]:
    def lower_memlock() -> None:
        if memlock is not None:
            resource.setrlimit(resource.RLIMIT_MEMLOCK, (memlock, memlock))

    proc = subprocess.run(
        [*KB, "preflight", "--format", "json", "--python", sys.executable],
        env=env, capture_output=True, text=True, timeout=120, preexec_fn=lower_memlock,
    )  # fmt: skip
    assert proc.returncode in (0, 1, 3), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def _cases(report: dict) -> list[str]:
    return [w["case"] for w in report["warnings"]]


def test_consumer_gpus_with_p2p_on_warn(tmp_path: Path) -> None:
    code, report = _preflight(_machine(tmp_path, RTX4090X2))
    assert code == 1
    assert _cases(report) == ["nccl-p2p-consumer-gpu-hang"]
    (warning,) = report["warnings"]
    assert {b["query"] for b in warning["because"]} == {"consumer_gpu", "pcie_only"}
    assert "NCCL_P2P_DISABLE=1" in warning["remedy"]["run"]
    assert warning["remedy"]["step"].endswith("Run once with P2P disabled")


def test_the_same_gpus_with_p2p_disabled_are_silent(tmp_path: Path) -> None:
    env = _machine(tmp_path, RTX4090X2)
    env["NCCL_P2P_DISABLE"] = "1"
    code, report = _preflight(env)
    assert (code, _cases(report)) == (0, [])


def test_a_clean_machine_is_silent(tmp_path: Path) -> None:
    code, report = _preflight(_machine(tmp_path, A100X8))
    assert (code, _cases(report)) == (0, [])
    assert report["machine"]["platforms"] == ["cuda"] and report["checked"] > 20


def test_no_gpu_says_nothing_was_checked_and_is_not_all_clear(tmp_path: Path) -> None:
    env = _machine(tmp_path, None)
    code, report = _preflight(env)
    assert (code, _cases(report)) == (3, [])  # 3: nothing could be checked (not the clean 0)
    assert report["checked"] == 0 and report["status"] == "nothing-checked"
    assert "nvidia-smi" in report["missing_tools"]
    text = subprocess.run([*KB, "preflight"], env=env, capture_output=True, text=True,
                          timeout=120).stdout  # fmt: skip
    assert "No known-bad combination found." not in text
    assert text.startswith("Nothing was checked: all ") and "nvidia-smi" in text


def test_a_socket_ifname_naming_a_missing_interface_warns(tmp_path: Path) -> None:
    env = _machine(tmp_path, A100X8)
    env["NCCL_SOCKET_IFNAME"] = "ib99"
    code, report = _preflight(env)
    assert code == 1 and _cases(report) == ["nccl-socket-wrong-interface"]
    assert "names no interface" in report["warnings"][0]["because"][0]["detail"]
    env["NCCL_SOCKET_IFNAME"] = "eth"  # a prefix of eth0: NCCL takes it
    assert _preflight(env)[0] == 0


def test_a_64_mb_dev_shm_warns(tmp_path: Path) -> None:
    env = _machine(tmp_path, A100X8)
    tool(tmp_path / "bin", "df", "echo 'Filesystem      Size  Used Avail Use% Mounted on'\n"
         "echo 'shm              64M     0   64M   0% /dev/shm'")  # fmt: skip
    code, report = _preflight(env)
    assert code == 1 and _cases(report) == ["docker-shm-too-small-nccl"]


def test_a_low_memlock_limit_warns_only_where_there_is_rdma(tmp_path: Path) -> None:
    env = _machine(tmp_path, A100X8)
    assert "ib-memlock-limit" not in _cases(_preflight(env, memlock=64 * 1024)[1])
    tool(tmp_path / "bin", "ibv_devinfo", f"exec cat {IBV_DEVINFO}")
    code, report = _preflight(env, memlock=64 * 1024)
    assert code == 1 and "ib-memlock-limit" in _cases(report)
    assert report["machine"]["rdma"] is True


def test_a_package_version_a_case_names_warns(tmp_path: Path) -> None:
    env = _machine(tmp_path, A100X8)
    fake_python = tool(
        tmp_path / "bin",
        "python-job",
        """
if [ "$1 $2 $3" = "-m pip freeze" ]; then
  printf 'torch==2.6.0\\nnvidia-nccl-cu12==2.25.1\\n'; exit 0
fi
exit 1""",
    )
    proc = subprocess.run(
        [*KB, "preflight", "--format", "json", "--python", str(fake_python)],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    report = json.loads(proc.stdout)
    assert proc.returncode == 1 and _cases(report) == ["nccl-known-bad-release"]
    # the release is known-bad from the catalogue's regressions, read by the case's one query
    because = report["warnings"][0]["because"][0]
    assert because["query"] == "bad_release"
    assert "nvidia-nccl-cu12==2.25.1" in json.dumps(because)
