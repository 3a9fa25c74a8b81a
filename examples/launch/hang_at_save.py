"""Hangs like a checkpoint save on the main process only: after two steps, rank 0 enters
`save_checkpoint`, whose `get_state_dict` waits for every rank (a collective), while the other
ranks have gone on to the end-of-epoch barrier. Each side waits for the other forever.

    python -m examples.launch.hang_at_save             # 4 ranks, hangs
    kb run --stall-after 10 --stop-on-stall -- python -m examples.launch.hang_at_save
"""

from __future__ import annotations

import time

from examples.launch.group import barrier, main


def get_state_dict(rank: int) -> dict[str, int]:
    barrier("gather-state-dict")  # every rank must take part; only rank 0 is here
    return {"step": 2}


def save_checkpoint(rank: int) -> None:
    state = get_state_dict(rank)
    print(f"saved {state}", flush=True)


def train(rank: int, world: int) -> None:
    for step in range(1, 3):
        time.sleep(0.2)
        barrier(f"step-{step}")
        print(f"step {step} done, loss {1.0 / step:.3f}", flush=True)
    if rank == 0:
        save_checkpoint(rank)  # the bug: a collective inside `if rank == 0`
    barrier("end-of-epoch")
    print("epoch done", flush=True)


if __name__ == "__main__":
    main("examples.launch.hang_at_save", train)
