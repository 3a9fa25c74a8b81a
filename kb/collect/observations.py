"""What `kb run` saw, in plain sentences (`kb-run-notes.md` in the bundle, read as notes):
how many rank processes ran, whether the job hung and which rank was elsewhere in its stacks,
how it ended. Only facts kb run observed itself; nothing is inferred about the cause.

>>> where = {0: ["barrier", "get_state_dict", "save_checkpoint", "train"],
...          1: ["barrier", "train"], 2: ["barrier", "train"]}
>>> odd_ranks(where)
[0]
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

_FRAME = re.compile(r"^ {4}(\S.*?) \((.+):(\d+)\)\s*$")
_THREAD = re.compile(r'^Thread \S+ \([^)]*\)(?:: "(.*)")?')
DEPTH = 4  # innermost frames compared between ranks


def main_thread_frames(text: str) -> list[str]:
    """Function names of the main thread in a `py-spy dump`, innermost first."""
    frames: list[str] = []
    current: list[str] | None = None
    main: list[str] | None = None
    for line in text.splitlines():
        m = _THREAD.match(line)
        if m:
            current = []
            if main is None and (m.group(1) in (None, "MainThread")):
                main = current
            continue
        f = _FRAME.match(line)
        if f and current is not None:
            current.append(f.group(1))
    frames = main if main is not None else (current or [])
    return frames


def odd_ranks(where: dict[int, list[str]]) -> list[int]:
    """Ranks whose innermost frames differ from what most ranks show (none without a
    majority)."""
    keys = {r: tuple(f[:DEPTH]) for r, f in where.items() if f}
    if len(keys) < 2:
        return []
    (common, n), *rest = Counter(keys.values()).most_common()
    if rest and rest[0][1] == n:
        return []
    return sorted(r for r, k in keys.items() if k != common)


def _chain(frames: list[str]) -> str:
    return " ← ".join(f"`{f}`" for f in frames[: DEPTH + 2])


def stall_sentences(stacks: dict[int, Path], stall_after: float) -> list[str]:
    """Sentences about one stall, from the py-spy dumps taken during it (rank -> file)."""
    where = {r: main_thread_frames(p.read_text(encoding="utf-8", errors="replace"))
             for r, p in sorted(stacks.items())}  # fmt: skip
    out = [f"The job hung: no log grew for {stall_after:g} s; kb run took py-spy stacks of "
           f"{len(stacks)} rank process(es) then."]  # fmt: skip
    odd = odd_ranks(where)
    others = sorted(set(where) - set(odd))
    for rank in odd:
        out.append(f"While the job hung, rank {rank} was elsewhere: {_chain(where[rank])}; "
                   f"rank(s) {', '.join(map(str, others))} were in "
                   f"{_chain(where[others[0]])}.")  # fmt: skip
    return out
