"""scripts/catalogue/extract_rdma_core.py on a tiny fake rdma-core tree."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "catalogue" / "extract_rdma_core.py"

IBVERBS_H = '#define PFX\t\t"libibverbs: "\n'
INIT_C = """\
static void check_memlock_limit(void)
{
\tif (rlim.rlim_cur <= 32768)
\t\tfprintf(stderr, PFX "Warning: RLIMIT_MEMLOCK is %llu bytes.\\n"
\t\t\t"    This will severely limit memory registrations.\\n",
\t\t\t(unsigned long long)rlim.rlim_cur);
\tfprintf(stderr, PFX "Fatal: %s\\n", cond ? "a" : "b");
}
"""
DEVINFO_C = """\
int main(void)
{
\tprintf("\\t\\t\\tstate:\\t\\t\\t%s (%d)\\n", port_state_str(s), s);
\tperror("Failed to get IB devices list");
\tprintf("\\tNode GUID: 0x%016" PRIx64 "\\n", guid);
}
"""
MLX5_H = '#define PFX\t\t"mlx5: "\n'
CQ_C = """\
\t\t\tmlx5_err(mctx->dbg_fp, PFX "%s: got completion with error:\\n",
\t\t\t\t mctx->hostname);
"""


def make_tree(root: Path) -> Path:
    files = {
        "libibverbs/ibverbs.h": IBVERBS_H,
        "libibverbs/init.c": INIT_C,
        "libibverbs/examples/devinfo.c": DEVINFO_C,
        "providers/mlx5/mlx5.h": MLX5_H,
        "providers/mlx5/cq.c": CQ_C,
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


def test_lists_templates_with_each_folders_own_prefix(tmp_path: Path) -> None:
    done = run("--repo", str(make_tree(tmp_path)))
    assert done.returncode == 0, done.stderr
    found = [tuple(line.split("\t")) for line in done.stdout.splitlines()]
    assert found == [
        ("libibverbs/examples/devinfo.c:3", "printf", "state: {_} ({_:int})"),
        ("libibverbs/examples/devinfo.c:4", "perror", "Failed to get IB devices list: {_}"),
        ("libibverbs/examples/devinfo.c:5", "printf", "Node GUID: 0x{_:hex}"),
        ("libibverbs/init.c:4", "fprintf", "libibverbs: Warning: RLIMIT_MEMLOCK is {_:int} bytes."),
        ("libibverbs/init.c:4", "fprintf", "This will severely limit memory registrations."),
        ("libibverbs/init.c:7", "fprintf", "libibverbs: Fatal: {_}"),
        ("providers/mlx5/cq.c:1", "mlx5_err", "mlx5: {_}: got completion with error:"),
    ]


def test_path_option_limits_what_is_read(tmp_path: Path) -> None:
    done = run("--repo", str(make_tree(tmp_path)), "--path", "providers/mlx5")
    assert done.returncode == 0, done.stderr
    assert [line.split("\t")[0] for line in done.stdout.splitlines()] == ["providers/mlx5/cq.c:1"]


def test_help_names_the_usage(tmp_path: Path) -> None:
    done = run("--help")
    assert done.returncode == 0
    assert "--repo" in done.stdout and "--rev" in done.stdout
