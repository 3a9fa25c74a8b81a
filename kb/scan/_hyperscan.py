"""Hyperscan backend: one automaton for all patterns, match end offsets reported per chunk.

Why block mode per chunk (not stream mode, not HS_FLAG_SINGLEMATCH): measured on NCCL-style logs,
block mode scans 10-20% faster than stream mode; SINGLEMATCH only says a pattern occurs somewhere
in the scanned unit, so it would need one scan call per line. Stream mode is used only for a line
longer than the chunk, so such a line is still matched in full without being held in memory.
Compiled databases are cached on disk (keyed by the patterns and the hyperscan version) because
compiling 500 patterns takes about half a second, more than the whole `kb evidence` start-up budget.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import hyperscan as hs

from kb.cache.files import prune, write_whole
from kb.scan.prepared import cache_dir

FLAG_MULTILINE = hs.HS_FLAG_MULTILINE
FLAG_CASELESS = hs.HS_FLAG_CASELESS


def compile_error(expr: bytes, flags: int) -> str | None:
    """The compiler's message for one expression, or None if it compiles."""
    db = hs.Database(mode=hs.HS_MODE_BLOCK)
    try:
        db.compile(expressions=[expr], ids=[0], flags=[flags])
    except hs.error as exc:
        return str(exc)
    return None


def _machine() -> str:
    """`platform.machine()` (what it returns on POSIX), without importing `platform`: its
    import compiles a dozen regexes on every warm `kb diagnose`."""
    uname = getattr(os, "uname", None)
    if uname is not None:
        return str(uname().machine)
    import platform

    return platform.machine()


CACHE_KEEP = 64  # databases kept on disk (each a few hundred KB); the least recently used go


def _cache_path(
    exprs: list[bytes], flags: list[int], mode: int, ids: list[int] | None = None
) -> Path | None:
    ids = list(range(len(exprs))) if ids is None else ids
    key = hashlib.sha256(
        repr((getattr(hs, "__version__", "?"), _machine(), mode, exprs, flags, ids)).encode()
    ).hexdigest()[:32]
    cache = cache_dir()
    return cache / f"{key}.hsdb" if cache else None


def _compile(
    exprs: list[bytes], flags: list[int], mode: int, ids: list[int] | None = None
) -> hs.Database:
    """Compile, or load the same database from the on-disk cache."""
    ids = list(range(len(exprs))) if ids is None else ids
    path = _cache_path(exprs, flags, mode, ids)
    if path is not None and path.is_file():
        try:
            os.utime(path)  # "recently used" for the prune, which orders by mtime
            loaded = hs.loadb(path.read_bytes(), mode)
            # A loaded database has no scratch; the binding would crash on streams without one.
            loaded.scratch = hs.Scratch(loaded)
            return loaded
        except (hs.error, OSError, TypeError):
            pass  # stale or foreign file: recompile and overwrite
    db = hs.Database(mode=mode)
    db.compile(expressions=exprs, ids=ids, flags=flags)
    # a read-only home must not break scanning; every new case set, and every set of muted
    # patterns, adds a file, so the least recently used go
    if path is not None and write_whole(path, hs.dumpb(db)):
        prune(path.parent, "*.hsdb", CACHE_KEEP)
    return db


# Compiling costs about a millisecond per expression and a dropped match (the engine's Python
# callback, the shared-expression fan-out, the scanner's test) about a microsecond: a
# database without the muted patterns is rebuilt once this many matches per expression have
# been dropped. One already on disk (an earlier run built it) is loaded at once.
REBUILD_AFTER_MATCHES_PER_EXPR = 1000
# The first few muted sets of a database are built at once, as a console's (the same few
# progress patterns, block after block) pay for theirs many times over; only the sets past
# them, one per file of a many-rank folder, wait for their dropped matches.
EAGER_SETS = 4
NOT_YET: object = object()  # `_db_without`: keep scanning with the full database


class HyperscanBackend:
    """Scans blocks of whole lines; returns codes `end_offset * n + pattern_index`."""

    def __init__(self, exprs: list[bytes], flags: list[int]) -> None:
        self.n = len(exprs)
        self._exprs, self._flags = exprs, flags
        self._db = _compile(exprs, flags, hs.HS_MODE_BLOCK)
        self._stream_db: hs.Database | None = None
        self._without: dict[frozenset[int], hs.Database | None] = {}
        self._dropped = 0  # muted matches reported (and dropped by the caller) since a rebuild
        self._not_on_disk: set[frozenset[int]] = set()  # muted sets with no database on disk

    def _db_without(self, muted: set[int]) -> object:
        """The database minus muted patterns (their indexes kept as ids, so codes do not
        change), or NOT_YET while the full database is the cheaper choice.

        A muted pattern that matches most lines costs a Python callback per line, but a
        rebuilt database costs a compile of every other expression (seconds for the bundled
        set, and one per distinct muted set: on 512 MB of rank logs, minutes, whose files also
        pushed the base databases out of the disk cache). So a set is rebuilt only once the
        dropped matches have cost about what its compile will (rebuilds then never cost
        more than the callbacks they save), or at once when an earlier run left it on disk.
        Kept per set (and on disk); None when all are."""
        key = frozenset(muted)
        if key in self._without:
            return self._without[key]
        keep = [i for i in range(self.n) if i not in key]
        eager = len(self._without) < EAGER_SETS
        if not eager and self._dropped < self.n * REBUILD_AFTER_MATCHES_PER_EXPR:
            if key in self._not_on_disk:
                return NOT_YET
            path = _cache_path(
                [self._exprs[i] for i in keep], [self._flags[i] for i in keep],
                hs.HS_MODE_BLOCK, keep,
            ) if keep else None  # fmt: skip
            if path is None or not path.is_file():
                self._not_on_disk.add(key)
                return NOT_YET
        self._dropped = 0
        self._without[key] = (
            _compile(
                [self._exprs[i] for i in keep], [self._flags[i] for i in keep],
                hs.HS_MODE_BLOCK, keep,
            )
            if keep
            else None
        )  # fmt: skip
        return self._without[key]

    def scan_block(self, data: memoryview, muted: set[int] | None = None) -> list[int]:
        """Codes of every match in `data`; those of `muted` indexes may be among them (the
        caller drops them), until a database without them pays (`_db_without`)."""
        out: list[int] = []
        app, n = out.append, self.n

        def on_match(idx: int, _start: int, end: int, _flags: int, _ctx: object) -> None:
            app(end * n + idx)

        db = self._db_without(muted) if muted else self._db
        if db is NOT_YET:
            self._db.scan(data, match_event_handler=on_match)  # type: ignore[type-var]
            assert muted is not None
            self._dropped += sum(1 for code in out if code % n in muted)
        elif db is not None:
            db.scan(data, match_event_handler=on_match)  # type: ignore[attr-defined]
        return out

    def alone(self, line: bytes, indexes: set[int]) -> set[int]:
        """Which of `indexes` match inside `line` alone: one scan of it with the database."""
        n = self.n
        return indexes & {code % n for code in self.scan_block(memoryview(line))}

    def line_stream(self, limit: int) -> HyperscanLine:
        """Matcher for one line fed in pieces (the line is longer than a chunk)."""
        del limit  # the stream sees the whole line, whatever its length
        if self._stream_db is None:
            self._stream_db = _compile(self._exprs, self._flags, hs.HS_MODE_STREAM)
        return HyperscanLine(self._stream_db)


class HyperscanLine:
    """Pattern indexes matched anywhere in one long line, fed piece by piece."""

    def __init__(self, db: hs.Database) -> None:
        self.hits: set[int] = set()
        add: Callable[[int], None] = self.hits.add

        def on_match(idx: int, _start: int, _end: int, _flags: int, _ctx: object) -> None:
            add(idx)

        self._on_match = on_match
        self._stream = db.stream(match_event_handler=on_match)
        self._stream.__enter__()

    def feed(self, piece: memoryview) -> None:
        self._stream.scan(piece, match_event_handler=self._on_match)  # type: ignore[type-var]

    def close(self) -> set[int]:
        self._stream.close(match_event_handler=self._on_match)
        return self.hits
