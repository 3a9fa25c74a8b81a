"""Issue 29: `kb collect` and `kb run` write their bundles privately and through no symbolic
link they did not create, and reading a capture never blocks."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from kb.cli.main import main
from kb.collect.bundle import OutputRefused
from kb.collect.captures import Capture, run_capture
from kb.collect.collector import CollectReport, collect_to

REPO = Path(__file__).resolve().parents[2]
FILES = {"env.txt": "NCCL_DEBUG=INFO\n", "accelerate-config/default_config.yaml": "a: 1\n"}


def _report() -> CollectReport:
    return CollectReport(files=dict(FILES))


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    return victim


def test_an_archive_and_its_members_are_private(tmp_path: Path) -> None:
    out = tmp_path / "b.tar.gz"
    old = os.umask(0o022)
    try:
        collect_to(out, _report())
    finally:
        os.umask(old)
    assert _mode(out) == 0o600
    with tarfile.open(out) as tar:
        assert {m.mode for m in tar.getmembers()} == {0o600}
        assert sorted(m.name for m in tar.getmembers()) == sorted(f"b/{n}" for n in FILES)


def test_a_folder_bundle_is_private(tmp_path: Path) -> None:
    out = tmp_path / "bundle"
    old = os.umask(0o022)
    try:
        collect_to(out, _report())
    finally:
        os.umask(old)
    assert _mode(out) == 0o700
    assert _mode(out / "accelerate-config") == 0o700
    assert _mode(out / "env.txt") == 0o600
    assert _mode(out / "accelerate-config/default_config.yaml") == 0o600


def test_an_existing_empty_folder_is_made_private(tmp_path: Path) -> None:
    out = tmp_path / "bundle"
    out.mkdir(mode=0o755)
    out.chmod(0o755)
    collect_to(out, _report())
    assert _mode(out) == 0o700
    assert (out / "env.txt").read_text() == FILES["env.txt"]


def test_a_symlinked_output_folder_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "bundle"
    out.symlink_to(elsewhere)
    with pytest.raises(OutputRefused, match="symbolic link"):
        collect_to(out, _report())
    assert list(elsewhere.iterdir()) == []


def test_a_non_empty_folder_is_refused_without_force(tmp_path: Path) -> None:
    out = tmp_path / "bundle"
    out.mkdir()
    (out / "mine.txt").write_text("keep\n")
    with pytest.raises(OutputRefused, match="--force"):
        collect_to(out, _report())
    assert not (out / "env.txt").exists()
    collect_to(out, _report(), force=True)
    assert (out / "env.txt").read_text() == FILES["env.txt"]
    assert (out / "mine.txt").read_text() == "keep\n"


def test_links_inside_a_forced_folder_are_replaced_not_followed(tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    out = tmp_path / "bundle"
    out.mkdir()
    (out / "env.txt").symlink_to(victim)
    with pytest.raises(OutputRefused):
        collect_to(out, _report())
    collect_to(out, _report(), force=True)
    assert victim.read_text() == "precious\n"
    assert not (out / "env.txt").is_symlink()
    assert (out / "env.txt").read_text() == FILES["env.txt"]


def test_a_symlinked_sub_folder_is_refused_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "bundle"
    out.mkdir()
    (out / "accelerate-config").symlink_to(elsewhere)
    with pytest.raises(OutputRefused, match="symbolic link"):
        collect_to(out, _report(), force=True)
    assert list(elsewhere.iterdir()) == []


def test_a_planted_partial_file_is_not_followed(tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    out = tmp_path / "b.tar.gz"
    (tmp_path / "b.tar.gz.partial").symlink_to(victim)
    collect_to(out, _report())
    assert victim.read_text() == "precious\n"
    assert tarfile.is_tarfile(out)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial") and
                not p.is_symlink()]  # fmt: skip


def test_a_symlinked_archive_path_is_refused(tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    out = tmp_path / "b.tar.gz"
    out.symlink_to(victim)
    with pytest.raises(OutputRefused, match="symbolic link"):
        collect_to(out, _report(), force=True)
    assert victim.read_text() == "precious\n"


def test_kb_collect_refuses_a_link_and_a_full_folder_before_capturing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = tmp_path / "out"
    link.symlink_to(tmp_path)
    assert main(["collect", "-o", str(link)]) == 2
    assert "symbolic link" in capsys.readouterr().err
    full = tmp_path / "full"
    full.mkdir()
    (full / "x").write_text("x")
    assert main(["collect", "-o", str(full)]) == 2
    err = capsys.readouterr().err
    assert "not empty" in err and "--force" in err and "Traceback" not in err


def test_kb_run_refuses_a_symlinked_bundle_before_launching(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "target"
    target.mkdir()
    link = tmp_path / "bundle"
    link.symlink_to(target)
    marker = tmp_path / "launched"
    assert main(["run", "--bundle", str(link), "--", "touch", str(marker)]) == 2
    assert "symbolic link" in capsys.readouterr().err
    assert not marker.exists() and list(target.iterdir()) == []


def test_kb_run_force_writes_through_no_link_and_leaves_a_private_bundle(tmp_path: Path) -> None:
    """A --force run into a folder holding links to files outside leaves those files alone,
    and everything it writes is 0600 in 0700 folders."""
    victims = [_victim(tmp_path), tmp_path / "victim2.txt"]
    victims[1].write_text("precious\n")
    bundle = tmp_path / "bundle"
    (bundle / "logs").mkdir(parents=True)
    bundle.chmod(0o755)
    (bundle / "kb-run.json").symlink_to(victims[0])
    (bundle / "logs" / "launcher.stdout.log").symlink_to(victims[1])
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run(
        [sys.executable, "-m", "kb.cli.main", "run", "--bundle", str(bundle), "--",
         sys.executable, "-c", "print('hello from the job')"],
        env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert "not empty" in proc.stderr and proc.returncode == 2  # refused without --force
    proc = subprocess.run(
        [sys.executable, "-m", "kb.cli.main", "run", "--force", "--bundle", str(bundle), "--",
         sys.executable, "-c", "print('hello from the job')"],
        env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert [v.read_text() for v in victims] == ["precious\n"] * 2
    assert "hello from the job" in (bundle / "logs" / "launcher.stdout.log").read_text()
    assert _mode(bundle) == 0o700
    for path in bundle.rglob("*"):
        want = 0o700 if path.is_dir() else 0o600
        assert _mode(path) == want, path


def test_a_fifo_in_place_of_a_captured_file_is_skipped(tmp_path: Path) -> None:
    """`~/.nccl.conf` as a FIFO with no writer: reading it used to block forever."""
    home = tmp_path / "home"
    home.mkdir()
    fifo = home / ".nccl.conf"
    os.mkfifo(fifo)
    capture = Capture(file="nccl-conf.txt", paths=(str(fifo),))
    result = _in_thread(lambda: run_capture(capture, {}, 5.0))
    assert result.text is None
    assert "not a regular file" in result.output.note


def test_a_device_in_place_of_a_captured_file_is_skipped() -> None:
    capture = Capture(file="nccl-conf.txt", paths=("/dev/zero",))
    result = _in_thread(lambda: run_capture(capture, {}, 5.0))
    assert result.text is None and "not a regular file" in result.output.note


def _home_with_a_fifo_nccl_conf(tmp_path: Path) -> dict[str, str]:
    """The environment of a kb process whose home holds a FIFO where ~/.nccl.conf goes."""
    home = tmp_path / "home"
    home.mkdir()
    os.mkfifo(home / ".nccl.conf")
    return {"PATH": f"{tmp_path / 'no-bin'}:/usr/bin:/bin", "HOME": str(home),
            "LC_ALL": "C.UTF-8", "PYTHONPATH": str(REPO)}  # fmt: skip


def test_kb_collect_with_a_fifo_nccl_conf_finishes(tmp_path: Path) -> None:
    env = _home_with_a_fifo_nccl_conf(tmp_path)
    out = tmp_path / "b.tar.gz"
    proc = subprocess.run(
        [sys.executable, "-m", "kb.cli.main", "collect", "-o", str(out), "--timeout", "10",
         "--python", sys.executable],
        env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "not a regular file" in proc.stdout
    assert _mode(out) == 0o600


def test_kb_run_with_a_fifo_nccl_conf_finishes(tmp_path: Path) -> None:
    """kb run takes kb collect's capture at start: a FIFO ~/.nccl.conf must not block it
    (it blocked forever before 7002891), and the job's own exit code is kept."""
    env = _home_with_a_fifo_nccl_conf(tmp_path)
    bundle = tmp_path / "run-bundle"
    proc = subprocess.run(
        [sys.executable, "-m", "kb.cli.main", "run", "--bundle", str(bundle), "--",
         sys.executable, "-c", "print('step 1 loss 2.0')"],
        env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert bundle.is_dir() and any(bundle.rglob("*.log")), sorted(bundle.rglob("*"))


def _in_thread(fn):  # type: ignore[no-untyped-def]
    """Runs `fn` in a daemon thread so a blocking read fails the test instead of hanging it
    (the bound is generous: the failure it guards against is "forever")."""
    import threading

    box: list[object] = []
    worker = threading.Thread(target=lambda: box.append(fn()), daemon=True)
    worker.start()
    worker.join(60)
    assert box, "reading the capture blocked"
    return box[0]


def test_a_file_where_a_folder_bundle_goes_is_refused_even_with_force(tmp_path: Path) -> None:
    out = tmp_path / "bundle"
    out.write_text("mine\n")
    for force in (False, True):
        with pytest.raises(OutputRefused, match="not a folder"):
            collect_to(out, _report(), force=force)
    assert out.read_text() == "mine\n"
