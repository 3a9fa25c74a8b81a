"""The hot path's one door: scan a file's lines once and hand each matched line to whoever
asked for it (line sources, case patterns), doing as little Python per line as possible.

`scan_lines` is all the rest of the reader sees. Behind it, Python work per matched line is
what limits throughput, so a line is decoded and attributed (`ctx.line`) only when someone
needs more than its rank: a source that has not declined it (`LineSource.skip`), or a case
pattern still filling its first lines. Case hits past those keep their raw bytes in a short
tail (the last lines before a hang are the telling ones) and are only counted per rank, which
`ctx.rank_of` answers without decoding in most files. A case pattern that matches most lines
(progress, loss) would still cost Python work on each: once a file that belongs to one rank
has `enough` of them, the pattern is muted for the rest of the file and its count is a lower
bound, enough for any `min_count`/`max_count` (the matcher asks for more than the largest).
In a file with a rank of its own, a case pattern whose first lines are in is handed to the
scanner's `Tally`: it counts the pattern's lines and keeps their tail itself, and only lines
that may name another rank (`fastpath.RANK_BYTES`) still come here.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import BinaryIO, cast

from kb.evidence import progressbar
from kb.evidence.bulk import block_ranks, mutable
from kb.evidence.context import FileContext, Line
from kb.evidence.facts import EvidenceLine, SkippedFile
from kb.evidence.fastpath import RANK_BYTES
from kb.evidence.patterns import CASE, PROGRESS, Compiled
from kb.evidence.progress import PROGRESS_TAIL, last_per_rank
from kb.evidence.sources.base import LineSource
from kb.scan.engine import PatternSet, ScanStats, Tally, scan_stream

MAX_LINE_FAILURES = 50  # bad lines one source may skip in a file before it is stopped
_STOP = object()  # a case line that cannot be decoded: the rest of its owners are skipped


@dataclass
class CaseHits:
    """What the case patterns found in one file: first lines, counts per rank, saturation."""

    hits: dict[str, list[EvidenceLine]] = field(default_factory=dict)
    counts: dict[str, dict[int, int]] = field(default_factory=dict)
    saturated: set[str] = field(default_factory=set)  # keys whose count stopped at `enough`
    skipped: list[SkippedFile] = field(default_factory=list)


def scan_lines(
    body: BinaryIO,
    ctx: FileContext,
    found: CaseHits,
    compiled: Compiled,
    scanned: PatternSet,
    sources: dict[str, LineSource],
) -> ScanStats:
    """Scans `body` once for `scanned`; matched lines go to `sources` and into `found`."""
    door = _Door(ctx, found, compiled, scanned, sources)
    try:
        stats = scan_stream(
            body, scanned, door.on_line, muted=door.muted, tally=door.tally,
            before_block=door.before_block,
        )  # fmt: skip
        door.finish()
    finally:
        door.close()
    return stats


def _case_indexes(
    compiled: Compiled, scanned: PatternSet
) -> tuple[dict[str, list[int]], dict[int, str]]:
    """Case key -> its indexes in `scanned`, and index -> key: the same for every file read
    with this pair, so built once and shared (read only) by every file's door."""
    found = compiled.door_indexes.get(scanned)
    if found is None:
        indexes: dict[str, list[int]] = {}
        for pid, (owner, key) in compiled.owners.items():
            if owner == CASE and pid in scanned.index_of:
                indexes.setdefault(key, []).append(scanned.index_of[pid])
        key_of = {i: key for key, idxs in indexes.items() for i in idxs}
        found = compiled.door_indexes[scanned] = (indexes, key_of)
    return found


def _no_limit(_index: int) -> None:
    """A closed door's tally calls nothing."""


def _closed(_no: int, _raw: bytes, _ids: list[int]) -> None:
    """A closed door's line handler: the file's scan is over."""


class _Failures:
    """One bad line is skipped, not the file; a source that fails on line after line (a bug,
    not one hostile line) is stopped for the rest of the file."""

    def __init__(self, ctx: FileContext, found: CaseHits) -> None:
        self.ctx, self.found = ctx, found
        self.per_owner: Counter[str] = Counter()
        self.stopped: set[str] = set()

    def __call__(self, owner: str, no: int, exc: Exception) -> None:
        self.per_owner[owner] += 1
        where = self.ctx.display
        if self.per_owner[owner] == 1:
            reason = f"partly read: line {no} skipped by {owner}: {exc!r}"[:300]
            self.found.skipped.append(SkippedFile(path=where, reason=reason))
        if self.per_owner[owner] >= MAX_LINE_FAILURES:
            self.stopped.add(owner)
            self.found.skipped.append(
                SkippedFile(
                    path=where,
                    reason=f"partly read: source {owner} stopped after "
                    f"{MAX_LINE_FAILURES} bad lines (last at line {no})",
                )
            )


class _Door:
    """The scanner's callback (`on_line`), what it may mute, its `Tally`, and `finish`."""

    def __init__(
        self,
        ctx: FileContext,
        found: CaseHits,
        compiled: Compiled,
        scanned: PatternSet,
        sources: dict[str, LineSource],
    ) -> None:
        self.ctx, self.found, self.sources = ctx, found, sources
        cap = ctx.limits.hits_per_file
        self.head_cap, self.tail_cap = cap - cap // 2, cap // 2
        self.tally = Tally(len(scanned), self.tail_cap, veto=RANK_BYTES)
        self.muted: set[int] = set()
        self.bulk: set[int] = set()  # muted for the block being scanned only (bulk.py)
        self.enough = compiled.enough
        self.case_indexes, self.key_of = _case_indexes(compiled, scanned)
        self.tails: dict[str, deque[tuple[int, bytes]]] = {}
        self.progress: deque[tuple[int, bytes]] = deque(maxlen=PROGRESS_TAIL)
        self.fail = _Failures(ctx, found)
        self.tally.on_limit = self._on_limit
        self.on_line = _line_handler(self, compiled, scanned)

    def single_rank(self, rank: int | None) -> bool:
        """The file is one rank's, and this line is that rank's: nothing else to count."""
        file_rank = self.ctx.file_rank
        return (
            file_rank is not None
            and rank == file_rank
            and all(r == file_rank for r in self.ctx.line_ranks)
        )

    def hand_over(self, key: str, counter: Counter[int], enough: int | None) -> None:
        """From now on the scanner counts this key's lines of the file's own rank."""
        limit = enough
        if limit is not None:  # the line being handled is counted right after this
            limit = max(1, limit - counter[cast(int, self.ctx.file_rank)] - 1)
        for i in self.case_indexes.get(key, ()):
            self.tally.count_only(i, limit)

    def before_block(self, buf: bytearray | None, end: int) -> None:
        """Before the scanner's next block (None: a long line): mute, for that block only, the
        case patterns its ranks have all counted enough of (see `kb.evidence.bulk`)."""
        if self.bulk:
            self.muted.difference_update(self.bulk)
            self.bulk = set()
        progressbar.scanned(end)  # each byte of the file is in one block (or a long line)
        counts = self.found.counts
        if buf is None or self.ctx.file_rank is not None or not counts:
            return
        enough = self.enough
        ready = {  # keys some rank has counted enough of: only they may be muted
            key: enough[key]
            for key, counter in counts.items()
            if key in enough and counter and max(counter.values()) >= enough[key]
        }
        known = {r for key in ready for r in counts[key]}  # the ranks counted so far
        ranks = block_ranks(buf, end, known) if ready else None
        if not ranks:
            return
        indexes, keys = mutable(ranks, counts, ready, self.case_indexes)
        self.bulk = indexes - self.muted
        if self.bulk:
            self.muted.update(self.bulk)
            self.found.saturated.update(keys)

    def _on_limit(self, i: int) -> None:
        if self.single_rank(self.ctx.file_rank):
            self.muted.add(i)
            self.found.saturated.add(self.key_of[i])

    def close(self) -> None:
        """Breaks the door's reference cycles (its line handler's closures and the tally's
        limit callback point back at it): a folder of thousands of small files otherwise
        kept every file's door until a full garbage collection, 150 KB each."""
        self.tally.on_limit = _no_limit
        self.on_line = _closed

    def finish(self) -> None:
        """The scanner's counts and tails join the case hits; the last progress line of each
        rank goes to the text-log source."""
        ctx, found, tally, keep = self.ctx, self.found, self.tally, self.tail_cap
        for key, idxs in self.case_indexes.items() if tally.any else ():  # else none counted
            counted = sum(tally.counts[i] for i in idxs)
            if counted:
                found.counts[key][-1 if ctx.file_rank is None else ctx.file_rank] += counted
                extra = [x for i in idxs for x in tally.tails.get(i, ())]
                merged = sorted([*self.tails.get(key, ()), *extra])[-keep:]
                self.tails[key] = deque(merged, maxlen=keep)
        for key, tail in self.tails.items():
            found.hits[key].extend(ctx.evidence(ctx.line(no, raw), "case") for no, raw in tail)
        self.tails.clear()
        src = self.sources.get("text-log")
        if src is not None:
            src.on_lines(PROGRESS[1], last_per_rank(ctx, self.progress))
        self.progress.clear()


LineHandler = Callable[[int, bytes, list[int]], None]


def _line_handler(door: _Door, compiled: Compiled, scanned: PatternSet) -> LineHandler:
    """`on_line` for the scanner, as closures over the door's state (a closure's cells are
    cheaper than attribute lookups, and this runs on every matched line)."""
    ctx, sources, owners = door.ctx, door.sources, compiled.owners
    progress, fail = door.progress, door.fail
    progress_id = compiled.progress_id
    raw_only = {
        pid: (sources[owner], key)
        for pid, (owner, key) in compiled.source_owners.items()
        if owner in sources and key in sources[owner].raw_keys
    }
    on_case = _case_handler(door, compiled.enough, scanned)
    on_source = _source_handler(door, compiled.source_owners)

    def on_raw(src: LineSource, key: str, no: int, raw: bytes) -> None:
        if src.name not in fail.stopped:
            try:
                if not src.skip(key, no, raw):
                    src.on_line(key, ctx.line(no, raw))
            except Exception as exc:
                fail(src.name, no, exc)

    def on_line(no: int, raw: bytes, ids: list[int]) -> None:
        if len(ids) == 1:
            pid = ids[0]
            if pid == progress_id:
                # progress bars can be most of a log; only the last ones per rank matter, so
                # keep the raw lines and attribute the survivors once the file is read
                progress.append((no, raw))
                return
            only = raw_only.get(pid)  # the common case of a raw key, without the loop below
            if only is not None:
                on_raw(only[0], only[1], no, raw)
                return
        line: Line | None = None
        for pid in ids:
            owner, key = owners[pid]
            if owner == CASE:
                got = on_case(pid, key, no, raw, line)
                if got is _STOP:
                    return
                line = cast("Line | None", got)
            else:
                line = on_source(pid, owner, key, no, raw, line)

    return on_line


def _case_handler(
    door: _Door, enough: dict[str, int], scanned: PatternSet
) -> Callable[[int, str, int, bytes, Line | None], object]:
    """A case pattern's matched line: its first lines are kept whole, later ones raw in a
    tail; every one is counted for its rank. Returns the line (decoded or not) or _STOP."""
    ctx, found, fail = door.ctx, door.found, door.fail
    head_cap, tail_cap, tails, muted = door.head_cap, door.tail_cap, door.tails, door.muted
    counters: dict[str, Counter[int]] = {}
    index_of = scanned.index_of

    def on_case(pid: int, key: str, no: int, raw: bytes, line: Line | None) -> object:
        counter = counters.get(key)
        if counter is None:
            counter = counters[key] = Counter()
            found.counts[key] = counter
            found.hits[key] = []
        hits = found.hits[key]
        rank: int | None
        if len(hits) < head_cap:
            if line is None:
                try:
                    line = ctx.line(no, raw)
                except ValueError as exc:
                    fail(CASE, no, exc)
                    return _STOP
            hits.append(ctx.evidence(line, "case"))
            rank = line.rank
            if len(hits) == head_cap and ctx.file_rank is not None:
                door.hand_over(key, counter, enough.get(key))
        else:
            tail = tails.get(key)
            if tail is None:
                tail = tails[key] = deque(maxlen=tail_cap)
            tail.append((no, raw))
            try:
                rank = line.rank if line is not None else ctx.rank_of(no, raw)
            except ValueError:
                rank = None
        slot = -1 if rank is None else rank
        counter[slot] += 1
        limit = enough.get(key)
        if limit is not None and counter[slot] >= limit and door.single_rank(rank):
            muted.add(index_of[pid])
            found.saturated.add(key)
        return line

    return on_case


def _source_handler(
    door: _Door, owners: dict[int, tuple[str, str]]
) -> Callable[[int, str, str, int, bytes, Line | None], Line | None]:
    """A line source's matched line, decoded only when the source will look at it; a
    suspicious line past the head of the buffer, of the file's own rank, stays raw.
    `owners`: the line sources' pattern ids (`Compiled.source_owners`)."""
    ctx, sources, fail = door.ctx, door.sources, door.fail
    suspicious_only = {
        pid
        for pid, (owner, key) in owners.items()
        if owner in sources and key in sources[owner].suspicious_keys
    }

    def on_source(
        pid: int, owner: str, key: str, no: int, raw: bytes, line: Line | None
    ) -> Line | None:
        src = sources.get(owner)
        if src is None or owner in fail.stopped:
            return line
        try:
            if key in src.raw_keys and src.skip(key, no, raw):
                return line
            if line is None:
                if pid in suspicious_only and ctx.suspects.head_full() and ctx.only_file_rank(raw):
                    ctx.suspects.raw(no, raw, owner)
                    return line
                line = ctx.line(no, raw)
            src.on_line(key, line)
        except Exception as exc:
            fail(owner, no, exc)
        return line

    return on_source
