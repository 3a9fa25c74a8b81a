"""The public entry point: `read_evidence(path, patterns)` → `EvidenceBundle`.

Lists the inputs, reads each file once (in parallel processes when the folder is large),
and merges what every file contributed into one `Facts` plus the case-pattern hits.
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kb.evidence import progressbar
from kb.evidence.bounded import InflateBudget
from kb.evidence.facts import EvidenceLine, Facts, SkippedFile
from kb.evidence.filereader import FileResult, LogPattern, check_patterns, read_file
from kb.evidence.inputs import STDIN, InputFile, is_archive, walk
from kb.evidence.issue_tasks import issue_tasks
from kb.evidence.layout import file_hints
from kb.evidence.limits import Limits
from kb.evidence.merge import (
    capture_disagreements,
    collect_ranks,
    device_rank_conflicts,
    env_conflicts,
    merge_into,
    package_conflicts,
)
from kb.evidence.ranks import PathHints

__all__ = ["EvidenceBundle", "LogPattern", "PatternHits", "read_evidence"]


@dataclass(kw_only=True)
class PatternHits:
    """Lines matching one case pattern (capped per file) and the full count per file and rank."""

    lines: list[EvidenceLine] = field(default_factory=list)
    counts: dict[str, dict[int, int]] = field(default_factory=dict)  # file -> {rank or -1: count}
    saturated: list[str] = field(default_factory=list)  # files whose count stopped at `enough`


@dataclass(kw_only=True)
class EvidenceBundle:
    root: str
    facts: Facts
    hits: dict[str, PatternHits] = field(default_factory=dict)


def read_evidence(
    path: str | Path,
    patterns: Sequence[LogPattern] = (),
    *,
    workers: int | None = None,
    limits: Limits | None = None,
) -> EvidenceBundle:
    """Reads a folder, archive, single file or "-" (stdin) into facts and pattern hits.

    Raises FileNotFoundError when `path` does not exist and ValueError when a pattern does not
    compile; everything wrong with the evidence itself is reported in `facts.skipped`.
    """
    with _gc_paused():
        return _read_evidence(path, patterns, workers, limits)


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while reading: the reader allocates tens of thousands of
    small objects (lines, evidence, results unpickled from workers) and creates no cycles, so
    the collector's repeated passes over the growing heap were a fifth of the CPU time.
    Reference counting still frees everything as usual."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _read_evidence(
    path: str | Path, patterns: Sequence[LogPattern], workers: int | None, limits: Limits | None
) -> EvidenceBundle:
    limits = limits or Limits()
    pats = tuple(LogPattern(*p) for p in patterns)
    check_patterns(pats)
    skipped: list[SkippedFile] = []
    if str(path) == STDIN:
        from kb.evidence.stdin import spool_stdin  # tempfile, gzip: only for stdin

        root = "<stdin>"
        tasks = [spool_stdin(limits, skipped)]
        workers = 1
    else:
        p = Path(path)
        if not p.exists() and not p.is_symlink():
            raise FileNotFoundError(f"no such file or folder: {path}")
        root = str(p)
        tasks = list(walk(p, skipped))
    if root == "<stdin>" or not os.path.isdir(root):  # an issue body: its parts, as files
        tasks = issue_tasks(tasks, limits, skipped)
    hints = file_hints(tasks, limits)
    total = sum(t.size for t in tasks)
    if workers is None:
        workers = min(os.cpu_count() or 1, 8) if total > limits.parallel_threshold else 1
    workers = max(1, min(workers, len(tasks)))
    with progressbar.reading(total):
        if workers == 1:
            budget = InflateBudget(limits)
            results: list[FileResult] = []
            for t in tasks:
                results.extend(_read_task(t, pats, limits, budget, hints.get(t.display)))
                progressbar.file_done(t.size)
        else:
            results = _parallel(tasks, pats, limits, workers, hints)
    return _bundle(root, results, skipped)


def _read_task(
    task: InputFile,
    patterns: tuple[LogPattern, ...],
    limits: Limits,
    budget: InflateBudget,
    hints: PathHints | None,
) -> Iterator[FileResult]:
    task.budget = budget
    if task.archive or is_archive(task.display):
        skipped: list[SkippedFile] = []
        from kb.evidence.archives import iter_archive  # tarfile/zipfile: only for archives

        for member in iter_archive(task, budget, skipped):
            yield read_file(member, patterns, limits)
            while skipped:
                yield FileResult(file=None, facts=Facts(), skipped=[skipped.pop(0)])
        if skipped:
            yield FileResult(file=None, facts=Facts(), skipped=skipped)
        return
    yield read_file(task, patterns, limits, hints)


_WORKER_BUDGET: InflateBudget | None = None


def _init_worker(limits: Limits, workers: int) -> None:
    global _WORKER_BUDGET
    share = max(limits.total_inflated // workers, 1)
    _WORKER_BUDGET = InflateBudget(Limits(total_inflated=share))
    _WORKER_BUDGET.limits = limits
    _WORKER_BUDGET.remaining = share


def _worker(
    args: tuple[InputFile, tuple[LogPattern, ...], Limits, PathHints | None],
) -> list[FileResult]:
    task, patterns, limits, hints = args
    budget = _WORKER_BUDGET or InflateBudget(limits)
    return list(_read_task(task, patterns, limits, budget, hints))


def _parallel(
    tasks: list[InputFile],
    patterns: tuple[LogPattern, ...],
    limits: Limits,
    workers: int,
    hints: dict[str, PathHints],
) -> list[FileResult]:
    """Each worker gets an equal share of the inflate budget; results keep the input order."""
    import multiprocessing  # imported here: most folders are read in-process
    from concurrent.futures import ProcessPoolExecutor

    ctx = multiprocessing.get_context("fork")
    jobs = [(t, patterns, limits, hints.get(t.display)) for t in tasks]
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=ctx, initializer=_init_worker, initargs=(limits, workers)
    ) as pool:
        results: list[FileResult] = []
        for task, batch in zip(tasks, pool.map(_worker, jobs, chunksize=1), strict=True):
            results.extend(batch)
            progressbar.file_done(task.size)
        return results


def _bundle(root: str, results: list[FileResult], skipped: list[SkippedFile]) -> EvidenceBundle:
    facts = Facts(skipped=list(skipped))
    hits: dict[str, PatternHits] = {}
    world: list[int] = []
    for res in results:
        facts.skipped.extend(res.skipped)
        if res.file is None:
            continue
        facts.files.append(res.file)
        merge_into(facts, res.facts, res.file.kind, res.file.path)
        if res.world_size:
            world.append(res.world_size)
        for key, lines in res.hits.items():
            ph = hits.setdefault(key, PatternHits())
            ph.lines.extend(lines)
        for key, counts in res.counts.items():
            hits.setdefault(key, PatternHits()).counts[res.file.path] = dict(counts)
        for key in sorted(res.saturated):
            hits[key].saturated.append(res.file.path)
    facts.world_size = max(world) if world else _env_world_size(facts)
    facts.conflicts.extend(package_conflicts(facts))
    facts.conflicts.extend(env_conflicts(facts))
    facts.conflicts.extend(device_rank_conflicts(facts))
    facts.disagreements.extend(capture_disagreements(facts))
    facts.ranks = collect_ranks(facts)
    return EvidenceBundle(root=root, facts=facts, hits=hits)


def _env_world_size(facts: Facts) -> int | None:
    for cap in facts.env_captures:
        value = cap.variables.get("WORLD_SIZE", "")
        if value.isdigit():
            return int(value)
    return None
