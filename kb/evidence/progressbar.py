"""A progress bar on stderr while a large input is read, so a long read is not silent.

Shown only when the caller turned it on (`shown`), which `kb diagnose` does for a person at
a terminal: never with `--format json`, never when stderr is not a terminal (CI, pipes). It
appears at once for inputs over `LARGE` bytes and after `DELAY` seconds for smaller ones, and
is cleared when reading ends. The reader reports whole files (`file_done`), the scanner the
bytes of the file being scanned (`scanned`); a worker process reports nothing (its parent
counts its files).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any

LARGE = 50 * 1024 * 1024
DELAY = 2.0  # seconds before a bar for a smaller input appears


class _State:
    enabled = False
    owner = 0  # pid of the process that shows the bar
    bar: Any = None
    done = 0  # bytes of finished files
    in_file = 0  # bytes of the current file scanned so far


_STATE = _State()


@contextlib.contextmanager
def shown(enabled: bool) -> Iterator[None]:
    """Let `reading` show a bar inside this block (when stderr is a terminal)."""
    before = _STATE.enabled, _STATE.owner
    _STATE.enabled = enabled and _isatty()
    _STATE.owner = os.getpid()
    try:
        yield
    finally:
        _STATE.enabled, _STATE.owner = before


def _isatty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed stderr
        return False


def _mine() -> bool:
    return _STATE.bar is not None and os.getpid() == _STATE.owner


@contextlib.contextmanager
def reading(total: int) -> Iterator[None]:
    """A bar over `total` bytes for the duration of the block, if one may be shown."""
    if not _STATE.enabled or os.getpid() != _STATE.owner or _STATE.bar is not None:
        yield
        return
    from tqdm import tqdm  # only when a bar may be drawn

    _STATE.done = _STATE.in_file = 0
    _STATE.bar = tqdm(
        total=total, unit="B", unit_scale=True, unit_divisor=1024, desc="kb: reading",
        file=sys.stderr, leave=False, dynamic_ncols=True, delay=0 if total > LARGE else DELAY,
    )  # fmt: skip
    try:
        yield
    finally:
        bar, _STATE.bar = _STATE.bar, None
        bar.close()


def scanned(nbytes: int) -> None:
    """`nbytes` more of the current file were scanned."""
    if _mine():
        _STATE.in_file += nbytes
        _STATE.bar.update(nbytes)


def file_done(size: int) -> None:
    """A file of `size` bytes is read: the bar shows it whole, whatever was scanned of it."""
    if _mine():
        _STATE.bar.update(size - _STATE.in_file)
        _STATE.done += size
        _STATE.in_file = 0
