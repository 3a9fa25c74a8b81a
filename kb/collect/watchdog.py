"""The progress watchdog of `kb run`: a job makes progress while any of its logs grows (rank
output, NCCL debug files, plogs; a collective that completes shows there when entry logs or
DETAIL mode are on). When nothing has grown for `stall_after` seconds, the job is stalled."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

MAX_FILES = 10_000  # files looked at per check: a runaway log folder cannot stall the check


def _sizes(folders: Iterable[Path]) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for folder in folders:
        for dirpath, _dirs, files in os.walk(folder):
            for name in files:
                path = os.path.join(dirpath, name)
                try:
                    sizes[path] = os.stat(path).st_size
                except OSError:
                    continue
                if len(sizes) >= MAX_FILES:
                    return sizes
    return sizes


class ProgressWatch:
    """Remembers when the job last showed progress."""

    def __init__(self, folders: list[Path], counters: Callable[[], int],
                 clock: Callable[[], float] = time.monotonic) -> None:  # fmt: skip
        self.folders, self.counters, self.clock = folders, counters, clock
        self._last_sizes = _sizes(folders)
        self._last_count = counters()
        self.last_progress = clock()

    def check(self) -> float:
        """Seconds since the last progress (0 when there was some since the last check)."""
        sizes = _sizes(self.folders)
        count = self.counters()
        if sizes != self._last_sizes or count != self._last_count:
            self._last_sizes, self._last_count = sizes, count
            self.last_progress = self.clock()
        return self.clock() - self.last_progress
