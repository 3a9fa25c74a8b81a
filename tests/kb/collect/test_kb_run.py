"""`kb run` end to end on real local processes (examples/launch): a hang gets real py-spy
stacks and a diagnosis naming the rank that is elsewhere, a crash names the crash, a clean run
says it is clean; signals reach the launcher and its exit code is kept."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from launch_fakes import KB, REPO

from kb.collect.launch import launcher_argv

pytestmark = pytest.mark.slow  # launches real multi-process jobs and takes py-spy stacks


def _env() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    for name in ("NCCL_DEBUG", "PYTHONUNBUFFERED"):
        env.pop(name, None)
    return env


def _kb_run(bundle: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*KB, "run", "--bundle", str(bundle), *args], cwd=REPO, env=_env(),
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def test_a_hang_gets_stacks_and_names_the_rank_elsewhere(tmp_path: Path) -> None:
    bundle = tmp_path / "hang"
    proc = _kb_run(bundle, "--stall-after", "3", "--stop-on-stall", "--",
                   sys.executable, "-m", "examples.launch.hang_at_save")  # fmt: skip
    assert proc.returncode == 128 + signal.SIGTERM, proc.stderr
    for rank in range(4):
        dump = (bundle / f"py-spy/rank{rank}.txt").read_text()
        assert dump.startswith("Process "), dump  # py-spy's own header: a real dump
        assert "Python v" in dump
    assert "get_state_dict (hang_at_save.py:" in (bundle / "py-spy/rank0.txt").read_text()
    assert "Most likely: eval-save-collective-deadlock" in proc.stdout
    assert "culprit rank 0" in proc.stdout
    record = json.loads((bundle / "kb-run.json").read_text())
    assert record["stalls"] and all(d["ok"] for d in record["stalls"][0])
    assert sorted(record["rank_processes"]) == ["0", "1", "2", "3"]


def test_a_crash_names_the_crash_and_keeps_the_exit_code(tmp_path: Path) -> None:
    bundle = tmp_path / "crash"
    proc = _kb_run(bundle, "--", sys.executable, "-m", "examples.launch.crash_one_rank")
    assert proc.returncode == 1
    # the faulthandler's segfault line is printed by other failures too (the catalogue says
    # so): the case is named first, at possible, with the rank that crashed
    assert re.search(
        r"^No known case is confirmed or likely\.\n"
        r"Possible \(weak signs only\): rank-segfault-tears-down-job",
        proc.stdout,
        re.M,
    ), proc.stdout
    assert "culprit rank: 2" in proc.stdout
    log = (bundle / "logs/launcher.stderr.log").read_text()
    assert "[rank2]:Fatal Python error: Segmentation fault" in log  # PYTHONFAULTHANDLER=1
    assert not list((bundle / "py-spy").iterdir())  # it never stalled


def test_a_clean_run_says_it_is_clean(tmp_path: Path) -> None:
    bundle = tmp_path / "clean"
    proc = _kb_run(bundle, "--", sys.executable, "-m", "examples.launch.clean")
    assert proc.returncode == 0, proc.stderr
    assert "clean run" in proc.stdout
    assert "Most likely" not in proc.stdout
    assert (bundle / "collect/pip-freeze.txt").exists()
    assert "[rank3]:step 3 done" in (bundle / "logs/launcher.stdout.log").read_text()


def test_the_exit_code_and_environment_are_the_launchers(tmp_path: Path) -> None:
    script = "import os, sys; print(os.environ['NCCL_DEBUG'], os.environ['NCCL_DEBUG_FILE']); sys.exit(7)"
    env = _env()
    env["NCCL_DEBUG"] = "WARN"  # the user's own value is kept
    proc = subprocess.run(
        [*KB, "run", "--bundle", str(tmp_path / "b"), "--", sys.executable, "-c", script],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 7
    out = (tmp_path / "b/logs/launcher.stdout.log").read_text()
    assert out.startswith(f"WARN {tmp_path / 'b'}/nccl/%h.%p.log")
    added = json.loads((tmp_path / "b/kb-run.json").read_text())["environment_added"]
    assert "NCCL_DEBUG" not in added and added["TORCH_NCCL_DUMP_ON_TIMEOUT"] == "1"


def _ignoring(*signals: int) -> Callable[[], None]:
    """What `nohup … &`, cron and CI runners do to a command: these signals start ignored."""

    def ignore() -> None:
        for sig in signals:
            signal.signal(sig, signal.SIG_IGN)

    return ignore


def _start(bundle: Path, *, ignored: tuple[int, ...] = (), args: tuple[str, ...] = (),
           command: tuple[str, ...] = ("-m", "examples.launch.hang_at_save"),
           ready: str = "step 2 done") -> subprocess.Popen[str]:  # fmt: skip
    proc = subprocess.Popen(
        [*KB, "run", "--bundle", str(bundle), "--stall-after", "600", *args, "--",
         sys.executable, *command],
        cwd=REPO, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_ignoring(*ignored),
    )  # fmt: skip
    assert proc.stdout is not None
    for line in proc.stdout:  # wait until the job is where the test wants it
        if ready in line:
            break
    return proc


def _alive(pid: int) -> bool:
    """Running or sleeping (a zombie left for init to reap has stopped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :].split()[0] != b"Z"


def test_sigterm_and_sigint_reach_the_launcher(tmp_path: Path) -> None:
    for sig in (signal.SIGTERM, signal.SIGINT):
        bundle = tmp_path / sig.name
        proc = _start(bundle)
        proc.send_signal(sig)
        proc.communicate(timeout=120)
        record = json.loads((bundle / "kb-run.json").read_text())
        assert record["signals_forwarded"] == [sig.name]
        # the launcher got it and died of it (Python re-raises SIGINT after KeyboardInterrupt)
        assert proc.returncode == 128 + sig
        assert record["exit_code"] == proc.returncode


def test_signals_reach_the_launcher_when_the_calling_shell_ignores_them(tmp_path: Path) -> None:
    """Started as `nohup kb run … &` is: SIGINT and SIGHUP ignored. The launcher must still get
    default dispositions, die of the SIGINT kb forwards, and leave nothing of its group."""
    bundle = tmp_path / "ignored"
    proc = _start(bundle, ignored=(signal.SIGINT, signal.SIGHUP))
    started = re.search(r"started 4 workers, pids \[([\d, ]+)\]",
                        (bundle / "logs/launcher.stdout.log").read_text())  # fmt: skip
    assert started, "the example launcher names its workers"
    workers = [int(pid) for pid in started.group(1).split(", ")]
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGINT, err
    assert "got SIGINT; sent SIGINT to the job" in err
    record = json.loads((bundle / "kb-run.json").read_text())
    assert record["signals_forwarded"] == ["SIGINT"]
    assert record["status"] == -signal.SIGINT  # the launcher itself died of it
    assert not [pid for pid in workers if _alive(pid)]


def test_a_job_that_ignores_signals_is_escalated_to_sigkill(tmp_path: Path) -> None:
    script = ("import signal, time\n"
              "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
              "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
              "print('ready', flush=True)\n"
              "time.sleep(600)\n")  # fmt: skip
    bundle = tmp_path / "stubborn"
    proc = _start(bundle, args=("--grace", "1"), command=("-c", script), ready="ready")
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGKILL, err
    steps = [line for line in err.splitlines() if "sent SIG" in line]
    assert [s.split("sent ", 1)[1].split()[0].rstrip(";") for s in steps] == [
        "SIGINT", "SIGTERM", "SIGKILL"], steps  # fmt: skip
    assert "SIGTERM in 1 s if it is still running" in steps[0]


def test_nothing_of_the_job_outlives_kb_run(tmp_path: Path) -> None:
    """A launcher that forks a child holding its output and exits: kb run does not wait for
    the child, and stops it (it would otherwise keep the pipes open and run on)."""
    script = ("import subprocess, sys\n"
              "child = subprocess.Popen(['sleep', '600'])\n"
              "print('child', child.pid, flush=True)\n")  # fmt: skip
    bundle = tmp_path / "leftover"
    proc = subprocess.run([*KB, "run", "--bundle", str(bundle), "--", sys.executable, "-c", script],
                          cwd=REPO, env=_env(), capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    pid = int(proc.stdout.split("child ", 1)[1].split()[0])
    assert "outlived the launcher" in proc.stderr and str(pid) in proc.stderr
    assert not _alive(pid)


def test_torchrun_gets_its_own_per_process_log_flags() -> None:
    argv, torchrun = launcher_argv(["torchrun", "--tee", "1", "--nproc-per-node=2", "t.py"], "/b")
    assert torchrun
    assert argv == ["torchrun", "--log-dir", "/b/logs", "--redirects", "3", "--tee", "1",
                    "--nproc-per-node=2", "t.py"]  # fmt: skip
    assert launcher_argv(["accelerate", "launch", "t.py"], "/b") == (
        ["accelerate", "launch", "t.py"], False)  # fmt: skip


def test_no_command_is_a_usage_error(tmp_path: Path) -> None:
    proc = subprocess.run([*KB, "run", "--bundle", str(tmp_path / "x")], cwd=REPO, env=_env(),
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 2 and "after --" in proc.stderr


def test_no_secret_the_job_prints_stays_in_the_bundle(tmp_path: Path) -> None:
    token, password = "hf_RunPlantedToken0123456789abcdef", "runplantedpassw0rd99"
    script = (
        "import os, sys\n"
        "print('logging in with', os.environ['HF_TOKEN'])\n"
        f"print('Authorization: Bearer {token}', file=sys.stderr)\n"
        f"print('proxy https://bob:{password}@proxy.example.com:3128')\n"
    )
    env = _env()
    env["HF_TOKEN"] = token
    bundle = tmp_path / "b"
    proc = subprocess.run(
        [*KB, "run", "--bundle", str(bundle), "--", sys.executable, "-c", script,
         f"--hub_token={token}"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "kb run: redacted" in proc.stderr
    planted = [token.encode()[i : i + 8] for i in range(len(token) - 7)]
    planted += [password.encode()[i : i + 8] for i in range(len(password) - 7)]
    files = [p for p in bundle.rglob("*") if p.is_file()]
    assert any(p.name == "launcher.stdout.log" for p in files)
    for path in files:
        data = path.read_bytes()
        assert not [w for w in planted if w in data], f"{path} holds part of a planted secret"
    assert "logging in with [REDACTED]" in (bundle / "logs/launcher.stdout.log").read_text()


def test_kb_run_says_when_py_spy_is_missing(tmp_path: Path) -> None:
    """The same virtual environment seen from a folder without the py-spy executable."""
    venv = Path(sys.prefix)
    if not (venv / "pyvenv.cfg").exists():
        raise AssertionError("the tests run in the project's virtual environment")
    alt = tmp_path / "venv"
    (alt / "bin").mkdir(parents=True)
    (alt / "pyvenv.cfg").write_text((venv / "pyvenv.cfg").read_text())
    (alt / "lib").symlink_to(venv / "lib")
    python = alt / "bin" / "python"
    python.symlink_to(Path(sys.executable).resolve())
    env = _env()
    env["PATH"] = "/usr/bin:/bin"
    proc = subprocess.run(
        [str(python), "-m", "kb.cli.main", "run", "--bundle", str(tmp_path / "b"),
         "--stall-after", "2", "--stop-on-stall", "--", str(python), "-m",
         "examples.launch.hang_at_save"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert "py-spy is not installed, so no stacks can be taken: pip install py-spy" in proc.stderr
    record = json.loads((tmp_path / "b/kb-run.json").read_text())
    assert record["stalls"] and not any(d["ok"] for d in record["stalls"][0])
