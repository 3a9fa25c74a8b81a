"""A time limit on one job, enforced inside the Ray task that runs it.

A job whose log blocks on read (a stuck network filesystem, a FIFO) never returns by
itself, and no flag the reader checks between lines can stop a read that never returns.
`SIGALRM` can: the blocking call is interrupted (EINTR), the handler raises `JobTimeout`,
and the task turns what it had into a `timeout` row. Ray runs a task on its worker's main
thread, where signal handlers live; elsewhere (a caller's thread) there is no limit and
`deadline` says so by yielding False.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class JobTimeout(Exception):
    """The job's time limit ran out; raised inside whatever call was running."""


@contextmanager
def deadline(seconds: float | None) -> Iterator[bool]:
    """Raise `JobTimeout` in this thread once `seconds` have passed; True when enforced."""
    if not seconds or seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield False
        return

    def expire(signum: int, frame: FrameType | None) -> None:
        raise JobTimeout(f"no result within the job time limit of {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
