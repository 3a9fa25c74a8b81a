"""Run a per-file function over many files on all cores, results in input order.

Why processes and fork: scanning is CPU-bound Python + C, so threads would serialize on the GIL
for the per-line work. With the fork start method `func` (and any PatternSet it closes over,
already compiled in the parent) is inherited by the workers instead of pickled: hyperscan
databases are compiled once, in the parent, never per file. Where fork is unavailable the function
is pickled once per worker (PatternSet unpickles through a per-process cache).
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

# Below this much input, starting processes costs more than it saves.
SERIAL_BELOW_BYTES = 8 << 20

_func: Callable[[Any], Any] | None = None


def _init(func: Callable[[Any], Any] | None) -> None:
    global _func
    if func is not None:
        _func = func


def _call(task: tuple[int, Any]) -> tuple[int, Any]:
    assert _func is not None
    return task[0], _func(task[1])


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _size(item: object) -> int:
    if isinstance(item, (str, bytes, os.PathLike)):
        try:
            return os.path.getsize(item)
        except OSError:
            return 0
    return SERIAL_BELOW_BYTES  # unknown cost: assume worth a process


def map_files(
    func: Callable[[T], R],
    items: Iterable[T],
    workers: int | None = None,
    *,
    serial_below_bytes: int = SERIAL_BELOW_BYTES,
) -> list[R]:
    """[func(item) for item in items], computed in worker processes, in input order.

    Items that are paths are scheduled largest first (so one big file does not finish last) and
    decide whether a pool is worth starting. Memory stays bounded: each worker handles one file at
    a time and only results (not file contents) travel back.
    """
    items = list(items)
    workers = min(workers or cpu_count(), len(items))
    sizes = [_size(it) for it in items]
    if workers <= 1 or sum(sizes) < serial_below_bytes:
        return [func(it) for it in items]
    order = sorted(range(len(items)), key=lambda i: -sizes[i])
    global _func
    fork = "fork" in mp.get_all_start_methods()
    ctx: Any = mp.get_context("fork" if fork else "spawn")
    init_arg: Callable[[T], R] | None = None if fork else func
    if fork:
        _func = func  # inherited by the forked workers, never pickled
    results: list[Any] = [None] * len(items)
    try:
        with ctx.Pool(workers, initializer=_init, initargs=(init_arg,)) as pool:
            for i, res in pool.imap_unordered(_call, ((i, items[i]) for i in order)):
                results[i] = res
            pool.close()
            pool.join()
    finally:
        _func = None
    return results
