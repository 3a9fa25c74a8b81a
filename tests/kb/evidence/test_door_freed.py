"""Issue 29: a folder of thousands of small files must not hold memory per file read.

Each file's scan builds a `_Door` (its line handler's closures and its tally's limit
callback point back at it). While those cycles stood, every door of a read stayed in memory
until a full garbage collection: 2,000 one-line files kept ~300 MB (kb diagnose peaked at
444 MB; 10,000 files passed 1 GB). With the cycles broken when a file's scan ends, reference
counting frees each door at once; the test reads with the collector off, so only that can."""

from __future__ import annotations

import gc
from pathlib import Path

from kb.evidence import dispatch
from kb.evidence.reader import LogPattern, read_evidence

PATTERNS = [
    LogPattern(key="warn", regex=r"NCCL WARN"),
    LogPattern(key="oom", regex=r"out of memory"),
]


def _doors() -> int:
    return sum(isinstance(o, dispatch._Door) for o in gc.get_objects())


def test_no_door_outlives_its_file(tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(60):
        (folder / f"part{i}.log").write_text(f"line {i} NCCL WARN x\nstep {i}\n", encoding="utf-8")
    read_evidence(folder, PATTERNS, workers=1)  # warm: compiles, lazy imports
    gc.collect()
    before = _doors()
    gc.disable()
    try:
        bundle = read_evidence(folder, PATTERNS, workers=1)
        left = _doors() - before
    finally:
        gc.enable()
    assert len(bundle.facts.files) == 60
    assert left == 0, f"{left} file scans left their door in memory"


def test_files_read_with_one_pattern_set_share_its_indexes(tmp_path: Path) -> None:
    """The case-key indexes are the same for every file of a pattern set: built once."""
    folder = tmp_path / "two"
    folder.mkdir()
    for name in ("a.log", "b.log"):
        (folder / name).write_text("NCCL WARN x\n", encoding="utf-8")
    seen: list[int] = []
    real = dispatch._Door.__init__

    def spy(self: dispatch._Door, *args: object) -> None:
        real(self, *args)  # type: ignore[arg-type]
        seen.append(id(self.key_of))

    dispatch._Door.__init__ = spy  # type: ignore[method-assign]
    try:
        read_evidence(folder, PATTERNS, workers=1)
    finally:
        dispatch._Door.__init__ = real  # type: ignore[method-assign]
    assert len(seen) == 2 and seen[0] == seen[1]
