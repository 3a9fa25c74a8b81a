"""Trains three steps on every rank and exits 0.

kb run -- python -m examples.launch.clean
"""

from __future__ import annotations

import time

from examples.launch.group import barrier, main


def train(rank: int, world: int) -> None:
    for step in range(1, 4):
        time.sleep(0.1)
        barrier(f"step-{step}")
        print(f"step {step} done, loss {1.0 / step:.3f}", flush=True)


if __name__ == "__main__":
    main("examples.launch.clean", train)
