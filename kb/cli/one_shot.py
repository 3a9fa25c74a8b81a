"""A command run once from the shell: no cyclic collection while it runs, no teardown after.

`kb diagnose` builds its knowledge base and evidence once, keeps them to the end and makes
no garbage cycles worth finding: every collection the collector ran (after the reading, in
the middle of the cases) walked tens of thousands of live objects for nothing, and at exit
the interpreter collected and then freed every object and module one by one. Both were
about 0.05 s of a warm run's 0.45 s of CPU. What the command allocates is still freed by
reference counting while it runs; the operating system takes the rest at exit.

Only the process's own command line gets this (`kb.cli.main.main()` without arguments):
a test or a program calling `main([...])` keeps its collector and carries on.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import sys
from typing import NoReturn


def begin() -> None:
    """No cyclic collection from now to the exit (reference counting frees as usual)."""
    gc.disable()


def exit_now(code: int) -> NoReturn:
    """Exit with `code` as `sys.exit` would, without the interpreter's teardown: the exit
    hooks run (the regex store is written there), the output is flushed, then the process
    ends."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe (`kb diagnose | head`)
            stream.flush()
    os._exit(code)
