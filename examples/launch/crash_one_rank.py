"""One rank dies of a segmentation fault in the middle of training (a real one: it reads
address 0); the launcher stops the others and exits non-zero.

    python -m examples.launch.crash_one_rank
    kb run -- python -m examples.launch.crash_one_rank
"""

from __future__ import annotations

import ctypes
import time

from examples.launch.group import barrier, main

CRASHING_RANK = 2


def custom_kernel(rank: int) -> None:
    if rank == CRASHING_RANK:
        ctypes.string_at(0)  # a null pointer read: SIGSEGV


def train(rank: int, world: int) -> None:
    for step in range(1, 4):
        time.sleep(0.2)
        if step == 2:
            custom_kernel(rank)
        barrier(f"step-{step}")
        print(f"step {step} done, loss {1.0 / step:.3f}", flush=True)


if __name__ == "__main__":
    main("examples.launch.crash_one_rank", train)
