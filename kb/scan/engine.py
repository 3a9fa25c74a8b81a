"""One streaming pass per file that answers every log query of every case at once.

Guarantees of `scan_stream` (both engines unless noted):

* A line is the bytes between two `\\n` (the last line may lack one); one trailing `\\r` is not
  part of the line, and `$` matches before `\\r\\n` as before `\\n`. Line numbers are 1-based.
* A pattern matches a line iff it matches somewhere inside that line: hits that the chunked scan
  finds across a newline are re-checked on the line alone (only for patterns that can consume a
  newline, e.g. `\\s` or `[^x]`, by the engine's own program: hyperscan scans the line alone
  with the same database, RE2 searches it with the program the scan used), so a match never
  spans two lines.
* Memory is bounded by about 2 x chunk_size + max_line_bytes per scan, whatever the file or line
  length. `on_line` receives at most the first `max_line_bytes` bytes of a line, but the pattern
  ids are decided on the whole line: a line longer than `chunk_size` is fed to hyperscan in
  streaming mode piece by piece. The re2 fallback cannot stream, so on such a line it only sees
  the first `chunk_size` bytes (a `$` may then also match at that cut).
* Cost is linear in the input: no backtracking engine, no per-line Python work except on lines
  that matched.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO, Protocol

from kb.scan import _re2, literals, narrowed, prepared, shared, subset, syntax
from kb.scan.regexes import line_regex, validate_regex

try:
    from kb.scan import _hyperscan
except ImportError:  # no wheel for this platform: RE2 fallback
    _hyperscan = None  # type: ignore[assignment]

ENGINE: str = "hyperscan" if _hyperscan is not None else "re2"
ENGINES: tuple[str, ...] = ("hyperscan", "re2") if _hyperscan is not None else ("re2",)


class _LineMatcher(Protocol):
    def feed(self, piece: memoryview) -> None: ...
    def close(self) -> set[int]: ...


class _Backend(Protocol):
    n: int

    def scan_block(self, data: memoryview, muted: set[int] | None = None) -> list[int]: ...
    def line_stream(self, limit: int) -> Any: ...
    def alone(self, line: bytes, indexes: set[int]) -> set[int]: ...


@dataclass
class ScanStats:
    bytes: int
    lines: int
    matched_lines: int


class PatternSet:
    """All log queries compiled into one multi-pattern program (compiled once, reusable).

    Pickles as its pattern list; unpickling in a worker reuses a per-process cache, so a pool
    compiles (or loads from the on-disk cache) once per worker, not once per file.
    """

    _tail_of: tuple[PatternSet, int] | None = None  # set on a view made by `tail`

    def __init__(
        self, patterns: Sequence[tuple[int, str, bool]], *, engine: str | None = None
    ) -> None:
        self.patterns: tuple[tuple[int, str, bool], ...] = tuple(
            (int(i), str(rx), bool(ic)) for i, rx, ic in patterns
        )
        self.engine = engine or ENGINE
        if self.engine not in ENGINES:
            raise ValueError(f"engine {self.engine!r} is not available here (have {ENGINES})")
        key = prepared.record_key(self.patterns, self.engine) if self.patterns else ""
        record = prepared.load(key, len(self.patterns)) if self.patterns else None
        if record is None:
            self._check()
            exprs = [syntax.to_line_end(syntax.crlf_dollar(rx)) for _, rx, _ in self.patterns]
            verify = [
                i for i, (_, rx, _) in enumerate(self.patterns) if syntax.may_match_newline(rx)
            ]
            for i in verify:  # RE2 must accept them now, not halfway through a scan
                line_regex(self.patterns[i][1], self.patterns[i][2])
            alts = [
                [syntax.to_line_end(syntax.crlf_dollar(a)) for a in syntax.alternatives(rx)]
                for _, rx, _ in self.patterns
            ]
            # RE2 programs cannot be kept on disk: what lets a later run build only those a
            # small text needs, and of each only the alternatives it may hold (hyperscan
            # loads its whole database instead). A pattern cut into parts is told by its
            # alternatives' factors, so it needs none of its own (one parse, not two).
            parts = factors = None
            if self.engine == "re2":
                parts = [narrowed.parts_of(rx) for _, rx, _ in self.patterns]
                factors = [
                    literals.factor(e) if p is None else None
                    for e, p in zip(exprs, parts, strict=True)
                ]
        else:
            exprs, verify, alts, factors, parts = record
        self.ids: list[int] = [p[0] for p in self.patterns]
        self.index_of: dict[int, int] = {pid: i for i, pid in enumerate(self.ids)}
        # Patterns whose hits must be re-checked on the line alone (see module docstring)
        self.verify: set[int] = set(verify)
        # a first build compiles the whole RE2 set at once, which checks every pattern; a
        # set rebuilt from its record (it passed) may leave that to the first large text
        known = record is not None
        self.backend: _Backend | None = (
            self._compile(exprs, alts, factors if known else None, parts if known else None)
            if self.patterns
            else None
        )
        if record is None and self.patterns:  # only a set that passed every check
            prepared.store(key, exprs, verify, alts, factors, parts)

    def _check(self) -> None:
        """Raise ValueError naming the first pattern no engine may run."""
        for pid, rx, ic in self.patterns:
            if not rx or syntax.backtracking_construct(rx) or syntax.buffer_anchor(rx):
                raise ValueError(f"pattern {pid} {rx!r}: {validate_regex(rx, ic)}")
        # an empty match would hit every line (and the `.*$` a pattern may get hides it from
        # the engine's own check); a regex RE2 cannot compile is reported by validate_regex
        for pid, rx, ic in self.patterns:
            try:
                empty = line_regex(rx, ic).search(b"") is not None
            except Exception:
                empty = False
            if empty:
                raise ValueError(
                    f"pattern {pid} {rx!r}: matches the empty string, so it would match every line"
                )

    def _compile(
        self,
        exprs: list[str],
        alts: list[list[str]] | None = None,
        factors: prepared.Factors | None = None,
        parts: prepared.PartsList | None = None,
    ) -> _Backend:
        encoded = [e.encode() for e in exprs]
        hyper = self.engine == "hyperscan" and _hyperscan is not None
        if hyper:
            m, c = _hyperscan.FLAG_MULTILINE, _hyperscan.FLAG_CASELESS
        else:
            m, c = _re2.FLAG_MULTILINE, _re2.FLAG_CASELESS
        flags = [m | (c * ic) for _, _, ic in self.patterns]
        make = _hyperscan.HyperscanBackend if hyper else _re2.Re2Backend
        if hyper and alts is not None and any(len(a) > 1 for a in alts):
            # each distinct top-level alternative once (see kb.scan.shared); should the
            # engine refuse an alternative standing alone, the whole patterns are compiled.
            # Hyperscan only: it reports every match end, so a pattern's ends are exactly its
            # alternatives' ends; RE2's finditer reports leftmost non-overlapping matches, and
            # one that runs across lines (`[^.]*` takes newlines) hides a line that an
            # alternative alone would find (one notes line of one fixture, seen in kb test)
            units, unit_flags, unit_members = shared.units(
                [[a.encode() for a in group] for group in alts], flags
            )
            try:
                return shared.Shared(make(units, unit_flags), unit_members, len(self.patterns))
            except Exception:
                pass
        order, members = shared.distinct(encoded, flags)
        if len(order) < len(encoded):  # the same expression twice: compiled and matched once
            encoded, flags = [encoded[i] for i in order], [flags[i] for i in order]
        try:
            if hyper or factors is None:
                inner = make(encoded, flags)
            else:
                kept = [parts[i] for i in order] if parts is not None else None
                inner = _re2.Re2Backend(encoded, flags, [factors[i] for i in order], kept)
            if len(order) == len(self.patterns):
                return inner
            return shared.Shared(inner, members, len(self.patterns))
        except Exception as exc:
            for pid, rx, ic in self.patterns:
                problem = validate_regex(rx, ic)
                if problem:
                    raise ValueError(f"pattern {pid} {rx!r}: {problem}") from exc
            raise

    def tail(self, start: int) -> PatternSet:
        """This set's patterns from index `start` on, matched with this set's database: no
        compile of its own (see `kb.scan.subset`)."""
        if not 0 <= start < len(self.patterns) or self.backend is None:
            raise ValueError(f"no patterns from index {start} in a set of {len(self.patterns)}")
        view = PatternSet.__new__(PatternSet)
        view.patterns, view.engine = self.patterns[start:], self.engine
        view.ids = [p[0] for p in view.patterns]
        view.index_of = {pid: i for i, pid in enumerate(view.ids)}
        view.verify = {i - start for i in self.verify if i >= start}
        view.backend = subset.Tail(self.backend, start)
        view._tail_of = (self, start)
        return view

    def __len__(self) -> int:
        return len(self.patterns)

    def __reduce__(self) -> tuple[Any, ...]:
        if self._tail_of is not None:
            return (_restore_tail, self._tail_of)
        return (_restore, (self.patterns, self.engine))


_RESTORED: dict[tuple[Any, ...], PatternSet] = {}


def _restore(patterns: tuple[tuple[int, str, bool], ...], engine: str) -> PatternSet:
    key = (patterns, engine)
    found = _RESTORED.get(key)
    if found is None:
        if len(_RESTORED) >= 8:
            _RESTORED.clear()
        found = _RESTORED[key] = PatternSet(patterns, engine=engine)
    return found


def _restore_tail(parent: PatternSet, start: int) -> PatternSet:
    return parent.tail(start)


OnLine = Callable[[int, bytes, list[int]], None]


def _fill(stream: BinaryIO, target: memoryview) -> int:
    """Read until `target` is full or EOF (pipes and sockets return short reads)."""
    got, size = 0, len(target)
    readinto = getattr(stream, "readinto", None)
    while got < size:
        if readinto is not None:
            n = readinto(target[got:])
        else:
            data = stream.read(size - got)
            n = len(data)
            target[got : got + n] = data
        if not n:
            break
        got += n
    return got


class Tally:
    """Pattern indexes the scanner counts itself instead of reporting (per-line Python is the
    cost of a scan, and most hits of a frequent case pattern are only counted).

    The owner sets `only[i]` once index i needs nothing but a count and the last `keep` lines.
    A line whose indexes are all counted here is never handed to `on_line`; a line whose
    lowered bytes hold `veto` always is, whole (the owner counts it itself).
    `limit[i]`: when `counts[i]` reaches it, `on_limit(i)` is called (e.g. to mute i)."""

    def __init__(self, n: int, keep: int, veto: bytes | None = None) -> None:
        self.only = [False] * n
        self.counts = [0] * n
        self.limit: list[int | None] = [None] * n
        self.tails: dict[int, deque[tuple[int, bytes]]] = {}
        self.keep, self.veto = keep, veto
        self.any = False  # some index is counted here
        self.on_limit: Callable[[int], None] = lambda i: None

    def count_only(self, index: int, limit: int | None = None) -> None:
        self.only[index] = True
        self.limit[index] = limit
        self.any = True

    def add(self, indexes: list[int], no: int, raw: bytes) -> None:
        counts, limit, tails = self.counts, self.limit, self.tails
        for i in indexes:
            counts[i] += 1
            tail = tails.get(i)
            if tail is None:
                tail = tails[i] = deque(maxlen=self.keep)
            tail.append((no, raw))
            stop = limit[i]
            if stop is not None and counts[i] >= stop:
                limit[i] = None
                self.on_limit(i)


def _newlines(buf: bytearray, lo: int, hi: int) -> int:
    """`buf.count(b"\\n", lo, hi)`, faster on long stretches: `count` tests byte by byte,
    while `replace` jumps from newline to newline with memchr (about 2.5x faster on logs)."""
    if hi - lo < 2048:
        return buf.count(b"\n", lo, hi)
    piece = buf[lo:hi]
    return len(piece) - len(piece.replace(b"\n", b""))


class _Emitter:
    """Turns match codes of one block into `on_line` calls; the per-matched-line Python work."""

    def __init__(
        self,
        patterns: PatternSet,
        on_line: OnLine,
        max_line_bytes: int,
        muted: set[int] | None = None,
        tally: Tally | None = None,
    ) -> None:
        self.muted = muted if muted is not None else set()
        self.ids, self.verify = patterns.ids, patterns.verify
        # the re-check asks the engine that found the hit: no RE2 program of the query's own
        # regex to compile per pattern (0.6 ms each, 60 of them in a warm `kb diagnose` of a
        # small folder)
        self.backend = patterns.backend
        self.identity = self.ids == list(range(len(self.ids)))
        self.on_line, self.max = on_line, max_line_bytes
        self.tally = tally
        self.matched = 0

    def line(self, mv: memoryview, start: int, end: int, line_no: int, hits: set[int]) -> None:
        if end > start and mv[end - 1] == 13:
            end -= 1
        check = hits & self.verify if self.verify else None
        if check and self.backend is not None:
            hits.difference_update(check - self.backend.alone(mv[start:end].tobytes(), check))
            if not hits:
                return
        self.matched += 1
        raw = mv[start : min(end, start + self.max)].tobytes()
        tally = self.tally
        if tally is not None and tally.any:
            only = tally.only
            counted = [i for i in hits if only[i]]
            if counted and (tally.veto is None or tally.veto not in raw.lower()):
                tally.add(counted, line_no, raw)
                if len(counted) == len(hits):
                    return
                hits.difference_update(counted)
        ids = self.ids
        self.on_line(
            line_no, raw, sorted(hits) if self.identity else sorted({ids[i] for i in hits})
        )

    def block(
        self, buf: bytearray, mv: memoryview, block_end: int, codes: list[int], base: int
    ) -> int:
        """Report matched lines of buf[:block_end] (whose first line is line base+1).

        Returns the number of newlines in the block.
        """
        codes.sort()
        n = len(self.ids)
        counted = newlines = 0  # newlines in buf[:counted]
        cur_end = -1
        hits: set[int] = set()
        line_no = 0
        muted = self.muted  # may grow while this block's lines are handed out
        for code in codes:
            end, idx = divmod(code, n)
            if muted and idx in muted:
                continue
            p = end - 1  # last byte of the match; its line is the match's line
            if p <= cur_end:
                hits.add(idx)
                continue
            if hits:
                self.line(mv, counted, cur_end, line_no, hits)
            lo = cur_end + 1
            r = buf.rfind(b"\n", lo, p)
            start = r + 1 if r >= 0 else lo
            newlines += _newlines(buf, counted, start)
            counted = start
            line_no = base + newlines + 1
            cur_end = buf.find(b"\n", p, block_end)
            if cur_end < 0:
                cur_end = block_end
            hits = {idx}
        if hits:
            self.line(mv, counted, cur_end, line_no, hits)
        return newlines + _newlines(buf, counted, block_end)


def scan_stream(
    stream: BinaryIO,
    patterns: PatternSet,
    on_line: OnLine,
    *,
    max_line_bytes: int = 65536,
    chunk_size: int = 1 << 20,
    muted: set[int] | None = None,
    tally: Tally | None = None,
    before_block: Callable[[bytearray | None, int], None] | None = None,
) -> ScanStats:
    """Call `on_line(line_no, line, ids)` for each line matching at least one pattern, in order.

    `muted` holds pattern indexes (`PatternSet.index_of`) whose matches are dropped from the
    next block on; the caller may add to it while the scan runs (a count that has seen enough).
    `tally` counts the indexes it is told to, without `on_line` (see `Tally`).
    `before_block(buf, end)` is called before each block buf[:end] of whole lines is scanned
    (`(None, 0)` before a line longer than the chunk), so the caller may change `muted` for
    what it is about to see.
    """
    if chunk_size < 1 or max_line_bytes < 0:
        raise ValueError("chunk_size must be >= 1 and max_line_bytes >= 0")
    backend = patterns.backend
    emit = _Emitter(patterns, on_line, max_line_bytes, muted, tally)
    buf = bytearray(2 * chunk_size)
    mv = memoryview(buf)
    carry = lines = total = 0  # carry: bytes of an unfinished line at buf[:carry]
    while True:
        n = _fill(stream, mv[carry : carry + chunk_size])
        total += n
        end = carry + n
        if n == 0:
            if carry:  # what a long line left over, or a last line without a newline
                if before_block is not None:
                    before_block(buf, carry)
                codes = backend.scan_block(mv[:carry], muted) if backend else []
                lines += emit.block(buf, mv, carry, codes, lines) + (buf[carry - 1] != 10)
            break
        last_nl = buf.rfind(b"\n", carry, end)
        if last_nl < 0:
            if end < chunk_size:
                carry = end
                continue
            if before_block is not None:
                before_block(None, 0)
            read, carry, eof = _long_line(
                stream, buf, mv, end, backend, emit, lines, chunk_size, muted
            )
            total += read
            lines += 1
            if eof:
                break
            continue
        block_end = last_nl + 1
        if before_block is not None:
            before_block(buf, block_end)
        codes = backend.scan_block(mv[:block_end], muted) if backend else []
        lines += emit.block(buf, mv, block_end, codes, lines)
        carry = end - block_end
        if carry:
            buf[:carry] = buf[block_end:end]
    return ScanStats(bytes=total, lines=lines, matched_lines=emit.matched)


def _long_line(
    stream: BinaryIO,
    buf: bytearray,
    mv: memoryview,
    end: int,
    backend: _Backend | None,
    emit: _Emitter,
    lines_before: int,
    chunk_size: int,
    muted: set[int] | None = None,
) -> tuple[int, int, bool]:
    """Consume a line longer than the buffer, keeping only its head.

    Returns (bytes read, bytes of the next line left at buf[:carry], hit EOF).
    """
    matcher: _LineMatcher | None = backend.line_stream(chunk_size) if backend else None
    keep = emit.max
    head = bytearray(mv[: min(end, keep)])
    length, read = end, 0
    last = buf[end - 1]
    if matcher:
        matcher.feed(mv[:end])
    carry, eof = 0, False
    while True:
        n = _fill(stream, mv[:chunk_size])
        read += n
        if n == 0:
            eof = True
            break
        nl = buf.find(b"\n", 0, n)
        piece = n if nl < 0 else nl
        if piece:
            if matcher:
                matcher.feed(mv[:piece])
            if len(head) < keep:
                head += mv[: min(piece, keep - len(head))]
            length += piece
            last = buf[piece - 1]
        if nl >= 0:
            carry = n - nl - 1
            buf[:carry] = buf[nl + 1 : n]
            break
    hits = matcher.close() if matcher else set()
    if muted:
        hits -= muted
    if last == 13 and length - 1 < keep:
        del head[-1]  # the CR of a CRLF ending, kept only because the line was cut
    if hits:
        emit.matched += 1
        ids = emit.ids
        emit.on_line(lines_before + 1, bytes(head), sorted({ids[i] for i in hits}))
    return read, carry, eof
