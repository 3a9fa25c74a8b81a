"""scripts/catalogue/extract_frameworks.py on tiny fake DeepSpeed, Slurm and Open MPI trees."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "catalogue" / "extract_frameworks.py"

LAUNCH_PY = """\
import logging
logger = logging.getLogger(__name__)


def sigkill_handler(process, cmd, last_return_code, args):
    logger.info(f"Killing subprocess {process.pid}")
    logger.error(f"{cmd} exits with return code = {last_return_code}")
    logger.info("Port %d is already in use, trying port %d", 1, 2)
    utils.logger.info("Initializing TorchBackend in DeepSpeed with backend {}".format(args.b))
    if args.bad:
        raise ValueError("Hostfile is empty or not formatted correctly, "
                         "unable to proceed with launching.")
    assert args.ok, f"train {args.a} != {{literal}} " + "end"
    error_msg = f"The actor died because of an error raised in its creation task, {args}"
    print("not a message: " + compute())
"""

REQ_C = """\
static void _handle_signal(stepd_step_rec_t *step)
{
\t/* error("commented out %d", 1); */
\terror("*** %s ON %s CANCELLED AT %s DUE TO TIME LIMIT ***",
\t      entity, step->node_name, time_str);
\terror("Detected %"PRIu64" oom_kill event%s in %ps. Some of the step tasks have been OOM Killed.",
\t      cnt, s, &step->step_id);
}
"""

HELP_TXT = """\
# comment
[orterun:proc-aborted-strsignal]
%s noticed that process rank %lu with PID %lu on node %s exited on signal %d (%s).
#
[normal-termination-but]
%s job %s terminated normally, but %d %s. Per user-direction, the job has been aborted.
"""


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False
    )


def rows(out: str) -> list[tuple[str, str, str]]:
    return [tuple(line.split("\t")) for line in out.splitlines()]  # type: ignore[misc]


def test_python_messages_become_templates(tmp_path: Path) -> None:
    (tmp_path / "deepspeed" / "launcher").mkdir(parents=True)
    (tmp_path / "deepspeed" / "launcher" / "launch.py").write_text(LAUNCH_PY)
    done = run("--emitter", "deepspeed", "--repo", str(tmp_path))
    assert done.returncode == 0, done.stderr
    found = rows(done.stdout)
    templates = {template for _, _, template in found}
    assert "Killing subprocess {pid}" in templates
    assert "{cmd} exits with return code = {last_return_code}" in templates
    assert "Port {_:int} is already in use, trying port {_:int}" in templates
    assert "Initializing TorchBackend in DeepSpeed with backend {_}" in templates
    assert (
        "Hostfile is empty or not formatted correctly, unable to proceed with launching."
        in templates
    )
    # a field name used twice becomes an anonymous gap; literal braces stay escaped
    assert "train {a} != {{literal}} end" in templates
    assert "The actor died because of an error raised in its creation task, {args}" in templates
    assert not any("not a message" in template for template in templates)
    sites = {template: (where, site) for where, site, template in found}
    assert sites["Killing subprocess {pid}"] == ("deepspeed/launcher/launch.py:6", "logger.info")
    assert sites["Hostfile is empty or not formatted correctly, unable to proceed with launching."][
        1
    ] == ("raise ValueError")


def test_c_messages_of_slurm(tmp_path: Path) -> None:
    (tmp_path / "src" / "slurmd" / "slurmstepd").mkdir(parents=True)
    (tmp_path / "src" / "slurmd" / "slurmstepd" / "req.c").write_text(REQ_C)
    done = run("--emitter", "slurm", "--repo", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert rows(done.stdout) == [
        (
            "src/slurmd/slurmstepd/req.c:4",
            "error",
            "*** {_} ON {_} CANCELLED AT {_} DUE TO TIME LIMIT ***",
        ),
        (
            "src/slurmd/slurmstepd/req.c:6",
            "error",
            "Detected {_:int} oom_kill event{_} in {_}. Some of the step tasks have been OOM Killed.",
        ),
    ]


def test_open_mpi_help_topics(tmp_path: Path) -> None:
    (tmp_path / "orte" / "tools" / "orterun").mkdir(parents=True)
    (tmp_path / "orte" / "tools" / "orterun" / "help-orterun.txt").write_text(HELP_TXT)
    (tmp_path / "orte" / "tools" / "orterun" / "notes.txt").write_text("[x]\nnot a help file\n")
    done = run("--emitter", "openmpi", "--repo", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert rows(done.stdout) == [
        (
            "orte/tools/orterun/help-orterun.txt:3",
            "[orterun:proc-aborted-strsignal]",
            "{_} noticed that process rank {_:int} with PID {_:int} on node {_} exited on "
            "signal {_:int} ({_}).",
        ),
        (
            "orte/tools/orterun/help-orterun.txt:6",
            "[normal-termination-but]",
            "{_} job {_} terminated normally, but {_:int} {_}. Per user-direction, the job has "
            "been aborted.",
        ),
    ]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_revision_is_read_without_checkout(tmp_path: Path) -> None:
    launcher = tmp_path / "deepspeed" / "launcher"
    launcher.mkdir(parents=True)
    (launcher / "launch.py").write_text('logger.info("Main process received SIGTERM, exiting")\n')
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one"], check=True)
    subprocess.run([*git, "tag", "v0.1.0"], check=True)
    (launcher / "launch.py").write_text('logger.info("changed in the work tree")\n')
    done = run("--emitter", "deepspeed", "--repo", str(tmp_path), "--rev", "v0.1.0")
    assert done.returncode == 0, done.stderr
    assert [t for _, _, t in rows(done.stdout)] == ["Main process received SIGTERM, exiting"]


def test_bad_checkout_is_a_clear_error(tmp_path: Path) -> None:
    missing = run("--emitter", "vllm", "--repo", str(tmp_path / "nope"))
    assert missing.returncode == 2
    assert "no such directory" in missing.stderr and "Traceback" not in missing.stderr
    empty = run("--emitter", "vllm", "--repo", str(tmp_path))
    assert empty.returncode == 2
    assert "no source file found" in empty.stderr
    unknown = run("--emitter", "nope", "--repo", str(tmp_path))
    assert unknown.returncode == 2
