"""On a terminal, a report longer than the screen goes through the pager, so the first screen
is what the user sees first; piped or redirected, it is printed straight."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "examples" / "hang-at-eval-8gpu"
KB = [sys.executable, "-m", "kb.cli.main", "diagnose", str(EXAMPLE)]


def _on_a_terminal(tmp_path: Path, *extra: str) -> tuple[Path, bytes]:
    """kb diagnose with a pseudo-terminal as stdout and a pager that keeps what it is given."""
    kept = tmp_path / "paged.txt"
    pager = f"{sys.executable} -c \"import sys; open(sys.argv[1], 'w').write(sys.stdin.read())\""
    env = dict(os.environ, PYTHONPATH=str(REPO), KB_PAGER=f"{pager} {kept}", LINES="24",
               COLUMNS="100", NO_COLOR="1")  # fmt: skip
    env.pop("LESS", None)
    main, child = pty.openpty()
    screen = b""
    try:
        # read the terminal while kb writes to it: a pseudo-terminal holds a few KB only, and
        # a report longer than that would block kb in write() until something reads it
        proc = subprocess.Popen([*KB, *extra], cwd=REPO, env=env, stdout=child,
                                stderr=subprocess.PIPE)  # fmt: skip
        os.close(child)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(main, 65536)
                except OSError:  # EIO: the last writer closed the terminal
                    break
                if not chunk:
                    break
                screen += chunk
            elif proc.poll() is not None:
                break
        stderr = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))[1]
    finally:
        os.close(main)
    assert proc.returncode == 0, stderr
    return kept, screen


def test_a_long_report_on_a_terminal_goes_through_the_pager(tmp_path: Path) -> None:
    kept, screen = _on_a_terminal(tmp_path)
    paged = kept.read_text(encoding="utf-8")
    assert paged.startswith("Most likely: eval-save-collective-deadlock")
    assert paged.count("\n") > 24  # it would not have fitted
    assert b"Most likely" not in screen  # the pager showed it, not a straight print


def test_no_pager_prints_straight_on_a_terminal(tmp_path: Path) -> None:
    kept, screen = _on_a_terminal(tmp_path, "--no-pager")
    assert not kept.exists()
    assert screen.startswith(b"Most likely: eval-save-collective-deadlock")


def test_piped_output_never_pages(tmp_path: Path) -> None:
    kept = tmp_path / "paged.txt"
    env = dict(os.environ, PYTHONPATH=str(REPO), KB_PAGER=f"tee {kept}")
    proc = subprocess.run(KB, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.startswith("Most likely:")
    assert not kept.exists()
