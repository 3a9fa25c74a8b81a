"""scripts/catalogue/extract_nvidia_driver.py on a tiny fake open-gpu-kernel-modules tree."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "catalogue" / "extract_nvidia_driver.py"

NVERROR_H = """\
#define ROBUST_CHANNEL_GR_EXCEPTION                     (13)
#define INFOROM_PAGE_RETIREMENT_EVENT                   (63)
#define INFOROM_DRAM_RETIREMENT_EVENT                   INFOROM_PAGE_RETIREMENT_EVENT
#define ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS       (79)
"""

OS_INTERFACE_H = """\
#define NV_PCI_DEV_FMT "%04x:%02x:%02x.%x"
"""

OSINIT_C = """\
static void check(nv_state_t *nv)
{
    // nv_printf(NV_DBG_ERRORS, "NVRM: commented out %d\\n", 1);
    nvErrorLog_va((void *)pGpu, ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS,
                  "GPU has fallen off the bus.");
    NV_DEV_PRINTF(NV_DBG_ERRORS, nv, "RmInitAdapter failed! (0x%x:0x%x:%d)\\n",
        status.initStatus, status.rmStatus, status.line);
    nv_printf(NV_DBG_ERRORS,
              "NVRM: API mismatch: the client '%s' (pid %u)\\n"
              "NVRM: has the version %s, but this kernel module has\\n",
              procName, procId, version);
    nv_printf(NV_DBG_INFO, "not an NVRM line %d\\n", 3);
    nv_printf(NV_DBG_ERRORS, "NVRM: GPU " NV_PCI_DEV_FMT " {braces}\\n", a, b, c, d);
}
"""


def make_tree(root: Path) -> Path:
    files = {
        "src/common/sdk/nvidia/inc/nverror.h": NVERROR_H,
        "kernel-open/common/inc/os-interface.h": OS_INTERFACE_H,
        "src/nvidia/arch/nvalloc/unix/src/osinit.c": OSINIT_C,
    }
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return root


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False
    )


def rows(stdout: str) -> list[tuple[str, str, str]]:
    return [tuple(line.split("\t")) for line in stdout.splitlines()]  # type: ignore[misc]


def test_lists_each_xid_number_once_with_its_name(tmp_path: Path) -> None:
    done = run("--repo", str(make_tree(tmp_path)), "--only", "xid")
    assert done.returncode == 0, done.stderr
    assert rows(done.stdout) == [
        (
            "src/common/sdk/nvidia/inc/nverror.h:1",
            "Xid ROBUST_CHANNEL_GR_EXCEPTION",
            "NVRM: Xid (PCI:{pci}): 13, {detail}",
        ),
        (
            "src/common/sdk/nvidia/inc/nverror.h:2",
            "Xid INFOROM_PAGE_RETIREMENT_EVENT",
            "NVRM: Xid (PCI:{pci}): 63, {detail}",
        ),
        (
            "src/common/sdk/nvidia/inc/nverror.h:4",
            "Xid ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS",
            "NVRM: Xid (PCI:{pci}): 79, {detail}",
        ),
    ]


def test_turns_driver_messages_into_templates(tmp_path: Path) -> None:
    done = run("--repo", str(make_tree(tmp_path)), "--only", "messages")
    assert done.returncode == 0, done.stderr
    templates = [(where.rsplit(":", 1)[1], template) for where, _, template in rows(done.stdout)]
    pci = "{_:hex}:{_:hex}:{_:hex}.{_:hex}"
    assert templates == [
        ("4", "NVRM: Xid (PCI:{pci}): {xid:int}, GPU has fallen off the bus."),
        ("6", f"NVRM: GPU {pci}: RmInitAdapter failed! (0x{{_:hex}}:0x{{_:hex}}:{{_:int}})"),
        ("8", "NVRM: API mismatch: the client '{_}' (pid {_:int})"),
        ("8", "NVRM: has the version {_}, but this kernel module has"),
        ("13", f"NVRM: GPU {pci} {{{{braces}}}}"),
    ]


def test_reads_a_git_revision_without_checkout(tmp_path: Path) -> None:
    repo = make_tree(tmp_path / "repo")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "tree"], check=True)
    subprocess.run([*git, "tag", "595.45.04"], check=True)
    (repo / "src/common/sdk/nvidia/inc/nverror.h").write_text("#define NEW_XID (200)\n")
    done = run("--repo", str(repo), "--rev", "595.45.04", "--only", "xid")
    assert done.returncode == 0, done.stderr
    assert [number for _, _, number in rows(done.stdout)][
        -1
    ] == "NVRM: Xid (PCI:{pci}): 79, {detail}"


def test_a_missing_checkout_or_revision_is_a_clear_error(tmp_path: Path) -> None:
    done = run("--repo", str(tmp_path / "nowhere"))
    assert done.returncode == 2
    assert "no such directory" in done.stderr
    assert "Traceback" not in done.stderr
    repo = make_tree(tmp_path / "plain")
    done = run("--repo", str(repo), "--rev", "v999")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
