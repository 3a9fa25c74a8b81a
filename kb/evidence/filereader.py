"""Reads one file: sniff the head, classify, then either parse it whole or scan it once.

One `scan_stream` pass serves every line source and every case pattern; Python only runs on
lines that matched something.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import BinaryIO, NamedTuple, cast

from kb.evidence.bounded import ByteStream, PrefixedStream
from kb.evidence.context import FileContext, Line
from kb.evidence.facts import EvidenceFile, EvidenceLine, Facts, SkippedFile
from kb.evidence.failures import READ_ERRORS, skip_reason
from kb.evidence.inputs import InputFile
from kb.evidence.limits import Limits
from kb.evidence.ranks import PathHints, file_rank, path_hints
from kb.evidence.registry import LINE_SOURCES, SOURCES, classify
from kb.evidence.scanning import PatternSet, scan_stream
from kb.evidence.selection import scanned_in
from kb.evidence.sources.base import LineSource, WholeFileSource
from kb.evidence.sources.text_log import TextLogSource
from kb.evidence.unwrap import MAX_BYTES as UNWRAP_MAX_BYTES
from kb.evidence.unwrap import unwrap
from kb.scan.engine import Tally, _line_regex

CASE = "<case>"


class LogPattern(NamedTuple):
    """A case log-query regex (RE2 syntax); hits are collected under `key`.

    `sources` and `files` are the query's own restrictions (kinds, path globs): a file is only
    scanned for the patterns that can count there (`kb.evidence.selection.scanned_in`).
    `enough`: once a single-rank file has this many hits, its count may stop (it is then a
    lower bound, and the file is listed in `PatternHits.saturated`); None counts every line."""

    key: str
    regex: str
    ignore_case: bool = False
    sources: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    enough: int | None = None  # a count this high (per file and rank) may stop: see _dispatcher


@dataclass
class Compiled:
    log_set: PatternSet  # every line source's patterns + the case patterns
    case_set: PatternSet | None  # case patterns only (for whole-file kinds)
    owners: dict[int, tuple[str, str]]  # pattern id -> (source name or CASE, key)
    enough: dict[str, int]  # case key -> count after which a single-rank file may stop counting

    @property
    def progress_id(self) -> int | None:
        return next((pid for pid, owner in self.owners.items() if owner == PROGRESS), None)


PROGRESS_TAIL = 512  # last progress lines kept per file: enough for every rank of a console
PROGRESS = ("text-log", "progress")
TAIL_BYTES = 1 << 20  # how much of a large file's end is searched for progress lines
TAIL_FIRST = 128 << 10  # tried first: enough when progress bars are most of the log
TAIL_FROM = 0  # files on disk larger than this read progress from their tail


@lru_cache(maxsize=64)
def compile_patterns(patterns: tuple[LogPattern, ...], progress: bool = True) -> Compiled:
    """Builds the pattern sets once per process for a given set of case patterns.

    With `progress=False` the progress-bar pattern is left out: for large files on disk the
    last progress lines are read from the file's tail instead (see `_tail_progress`), since
    progress bars can be most of a log and would otherwise cost Python work per line."""
    owners: dict[int, tuple[str, str]] = {}
    entries: list[tuple[int, str, bool]] = []
    for cls in LINE_SOURCES:
        for key, (rx, ic) in cls.patterns.items():
            if not progress and (cls.name, key) == PROGRESS:
                continue
            owners[len(entries)] = (cls.name, key)
            entries.append((len(entries), rx, ic))
    case_entries: list[tuple[int, str, bool]] = []
    for pat in patterns:
        pid = len(entries) + len(case_entries)
        owners[pid] = (CASE, pat.key)
        case_entries.append((pid, pat.regex, pat.ignore_case))
    return Compiled(
        log_set=PatternSet(entries + case_entries),
        case_set=PatternSet(case_entries) if case_entries else None,
        owners=owners,
        enough={p.key: p.enough for p in patterns if p.enough is not None},
    )


def check_patterns(patterns: Sequence[LogPattern]) -> None:
    """Raises ValueError naming the first case pattern that does not compile.

    The whole set is compiled once (and cached); pattern by pattern only when that fails,
    to name the culprit, because compiling 500 databases one by one costs seconds."""
    try:
        compile_patterns(tuple(patterns), progress=False)  # the set files on disk use
        return
    except Exception:
        pass
    for pat in patterns:
        try:
            PatternSet([(0, pat.regex, pat.ignore_case)])
        except Exception as exc:
            raise ValueError(f"log pattern {pat.key!r} does not compile: {exc}") from None


@dataclass
class FileResult:
    """What one file contributed; merged into the bundle by the reader."""

    file: EvidenceFile | None
    facts: Facts
    skipped: list[SkippedFile] = field(default_factory=list)
    hits: dict[str, list[EvidenceLine]] = field(default_factory=dict)
    counts: dict[str, dict[int, int]] = field(default_factory=dict)
    saturated: set[str] = field(default_factory=set)  # keys whose count stopped at `enough`
    world_size: int | None = None


def head_problem(head: bytes, limits: Limits) -> str | None:
    """Why a file is not text, judged from its first bytes.

    >>> head_problem(b"ok\\x00", Limits()), head_problem(b"\\xff\\xfe" * 50, Limits())
    ('binary (NUL bytes in the first 8 KiB)', 'bad encoding (100% of the first 8 KiB is not UTF-8)')
    """
    if not head:
        return "empty file"
    if b"\x00" in head:
        return f"binary (NUL bytes in the first {limits.head_bytes // 1024} KiB)"
    text = head.decode("utf-8", "replace")
    bad = text.count("\ufffd")
    if bad and bad / max(len(text), 1) > limits.bad_encoding_ratio:
        share = round(100 * bad / len(text))
        return f"bad encoding ({share}% of the first {limits.head_bytes // 1024} KiB is not UTF-8)"
    return None


def _read_up_to(stream: ByteStream, n: int) -> bytes:
    chunks = []
    while n > 0:
        chunk = stream.read(n)
        if not chunk:
            break
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


# every way a stranger's file or archive member can fail to read: reported and skipped


def read_file(
    f: InputFile, patterns: tuple[LogPattern, ...], limits: Limits, hints: PathHints | None = None
) -> FileResult:
    """Reads one file into a FileResult; every failure becomes a SkippedFile."""
    hints = hints or path_hints(f.display)
    ctx = FileContext(display=f.display, hints=hints, limits=limits)
    result = FileResult(file=None, facts=ctx.facts)
    try:
        stream = f.open()  # an archive member's header is read here: corrupt ones fail too
    except READ_ERRORS as exc:
        reason = skip_reason(exc) if not isinstance(exc, OSError) or isinstance(
            exc, PermissionError) else f"unreadable: {exc.strerror or exc}"
        result.skipped.append(SkippedFile(path=f.display, reason=reason))
        return result
    try:
        _read(stream, f, ctx, result, patterns, limits)
    except READ_ERRORS as exc:
        return FileResult(
            file=None, facts=Facts(), skipped=[SkippedFile(path=f.display, reason=skip_reason(exc))]
        )
    finally:
        with contextlib.suppress(Exception):
            stream.close()
    return result


def _read(
    stream: ByteStream,
    f: InputFile,
    ctx: FileContext,
    result: FileResult,
    patterns: tuple[LogPattern, ...],
    limits: Limits,
) -> None:
    head = _read_up_to(stream, limits.head_bytes)
    problem = head_problem(head, limits)
    if problem:
        result.skipped.append(SkippedFile(path=f.display, reason=problem))
        return
    head_text = head.decode("utf-8", "replace")
    kind = classify(head_text, f.name)
    try:
        ctx.file_rank, rank_from, disagreement = file_rank(ctx.hints, head_text, f.display)
    except ValueError:  # a hostile number (thousands of digits) in a prefix names no rank
        ctx.file_rank, rank_from, disagreement = None, None, None
    if disagreement:
        ctx.facts.conflicts.append(disagreement)
    from_tail = f.fs_path is not None and not f.gz and f.size > TAIL_FROM
    compiled = compile_patterns(_wanted(patterns, kind, f), progress=not from_tail)
    cls = SOURCES[kind]
    size = 0
    lines = 0
    body: ByteStream = PrefixedStream(head, stream)
    if issubclass(cls, WholeFileSource):
        data = head + _read_up_to(stream, limits.whole_file_max - len(head) + 1)
        if len(data) > limits.whole_file_max:
            result.skipped.append(
                SkippedFile(
                    path=f.display,
                    reason=f"too large for {kind} (over {limits.whole_file_max} bytes); "
                    "scanned as a text log instead",
                )
            )
            kind = "text-log"
            body = PrefixedStream(data, stream)
            compiled = compile_patterns(_wanted(patterns, kind, f), progress=not from_tail)
        else:
            text = data.decode("utf-8", "replace")
            _guarded(ctx, result, kind, lambda: cls(ctx).parse(text))
            size = len(data)
            lines = text.count("\n") + (0 if not text or text.endswith("\n") else 1)
            if compiled.case_set is not None:
                on_case_line, finish_case_scan, muted, tally = _dispatcher(
                    ctx, result, compiled, {}, compiled.case_set
                )
                scan_stream(
                    io.BytesIO(data), compiled.case_set, on_case_line, muted=muted, tally=tally
                )
                finish_case_scan()
    if not issubclass(SOURCES[kind], WholeFileSource):
        if f.size <= UNWRAP_MAX:
            # a small paste: join the lines a terminal wrapped (numbering kept, see unwrap.py)
            data = _read_up_to(body, UNWRAP_MAX + 1)
            body = (io.BytesIO(unwrap(data)) if len(data) <= UNWRAP_MAX
                    else PrefixedStream(data, stream))
        sources: dict[str, LineSource] = {c.name: c(ctx) for c in LINE_SOURCES}
        dispatch, finish_scan, muted, tally = _dispatcher(
            ctx, result, compiled, sources, compiled.log_set
        )
        stats = scan_stream(
            cast(BinaryIO, body), compiled.log_set, dispatch, muted=muted, tally=tally
        )
        finish_scan()
        if from_tail and f.fs_path is not None and "text-log" in sources:
            _tail_progress(f.fs_path, stats.lines, ctx, sources["text-log"])
        size, lines = stats.bytes, stats.lines
        ctx.finish_lines()
        for src in sources.values():
            _guarded(ctx, result, src.name, src.finish)
    rank = ctx.file_rank
    explicit = [r for r, _ in ctx.line_ranks.most_common()]
    if len(explicit) > 1:
        if rank_from != "path" or ctx.hints.rank is None:  # a console of several ranks
            rank = rank_from = None
    elif rank is None and len(explicit) == 1:
        rank, rank_from = explicit[0], "content"
    if rank is None and not explicit and len(set(ctx.pid_ranks.items().values())) == 1:
        rank = next(iter(ctx.pid_ranks.items().values()))  # NCCL_DEBUG_FILE of one process
        rank_from = "nccl-init"
    result.file = EvidenceFile(
        path=f.display, kind=kind, rank=rank, rank_from=rank_from, node=ctx.hints.node,
        size=size or f.size, lines=lines,
    )  # fmt: skip
    result.world_size = max(ctx.world_sizes) if ctx.world_sizes else None


UNWRAP_MAX = UNWRAP_MAX_BYTES
MAX_LINE_FAILURES = 50  # bad lines one source may skip in a file before it is stopped
SUBSET_FROM = 8 << 20  # files at least this large are scanned only for patterns that count there


def _wanted(patterns: tuple[LogPattern, ...], kind: str, f: InputFile) -> tuple[LogPattern, ...]:
    """The case patterns that can count in this file (`scanned_in`), for large files.

    Small files take the whole set: the answer is the same (the matcher ignores hits in files
    a query does not look at) and one database serves them all, where a subset per kind would
    cost a compile each on a first run."""
    if f.size < SUBSET_FROM:
        return patterns
    return tuple(p for p in patterns if scanned_in(p.sources, p.files, kind, f.display))


def _guarded(ctx: FileContext, result: FileResult, name: str, call: object) -> None:
    """A bug in one source must not lose the file: report it and carry on."""
    try:
        call()  # type: ignore[operator]
    except Exception as exc:
        result.skipped.append(
            SkippedFile(
                path=ctx.display, reason=f"partly read: source {name} failed: {exc!r}"[:300]
            )
        )


def _dispatcher(
    ctx: FileContext,
    result: FileResult,
    compiled: Compiled,
    sources: dict[str, LineSource],
    scanned: PatternSet,
) -> tuple[Callable[[int, bytes, list[int]], None], Callable[[], None], set[int], Tally]:
    """The per-matched-line callback for the scanner, what to run once the scan ends, the
    set of pattern indexes of `scanned` the scan may stop reporting, and the scanner's `Tally`.

    Python work per matched line is what limits throughput, so a line is decoded and attributed
    (`ctx.line`) only when someone needs more than its rank: a source that has not declined it
    (`LineSource.skip`), or a case pattern still filling its first lines. Case hits past those
    keep their raw bytes in a short tail (the last lines before a hang are the telling ones) and
    are only counted per rank, which `ctx.rank_of` answers without decoding in most files.
    A case pattern that matches most lines (progress, loss) would still cost Python work on
    each: once a file that belongs to one rank has `enough` of them, the pattern is muted for
    the rest of the file and its count is a lower bound, enough for any `min_count`/`max_count`
    (the matcher asks for more than the largest of them).
    In a file with a rank of its own, a case pattern whose first lines are in is handed to the
    scanner's `Tally`: it counts the pattern's lines and keeps their tail itself, and only
    lines that may name another rank still come here.
    """
    owners = compiled.owners
    cap = ctx.limits.hits_per_file
    head_cap = cap - cap // 2
    # a line that spells "rank" may be another rank's (`FileContext.only_file_rank`)
    tally = Tally(len(scanned), cap - head_cap, veto=b"ank")
    case_indexes: dict[str, list[int]] = {}
    for pid, (owner, key) in owners.items():
        if owner == CASE and pid in scanned.index_of:
            case_indexes.setdefault(key, []).append(scanned.index_of[pid])
    key_of = {i: key for key, idxs in case_indexes.items() for i in idxs}
    failed: set[str] = set()
    counters: dict[str, Counter[int]] = {}
    tails: dict[str, deque[tuple[int, bytes]]] = {}
    progress: deque[tuple[int, bytes]] = deque(maxlen=PROGRESS_TAIL)
    progress_id = compiled.progress_id
    raw_filters = {name: src for name, src in sources.items() if src.raw_keys}
    raw_only = {
        pid: (sources[owner], key)
        for pid, (owner, key) in owners.items()
        if owner in raw_filters and key in sources[owner].raw_keys
    }
    suspicious_only = {
        pid
        for pid, (owner, key) in owners.items()
        if owner in sources and key in sources[owner].suspicious_keys
    }
    enough = compiled.enough
    muted: set[int] = set()

    def single_rank(rank: int | None) -> bool:
        """The file is one rank's, and this line is that rank's: nothing else to count."""
        file_rank = ctx.file_rank
        return (
            file_rank is not None
            and rank == file_rank
            and all(r == file_rank for r in ctx.line_ranks)
        )

    def hand_over(key: str, counter: Counter[int]) -> None:
        """From now on the scanner counts this key's lines of the file's own rank."""
        limit = enough.get(key)
        if limit is not None:  # the line being handled is counted right after this
            limit = max(1, limit - counter[cast(int, ctx.file_rank)] - 1)
        for i in case_indexes.get(key, ()):
            tally.count_only(i, limit)

    def on_limit(i: int) -> None:
        if single_rank(ctx.file_rank):
            muted.add(i)
            result.saturated.add(key_of[i])

    tally.on_limit = on_limit

    line_failures: Counter[str] = Counter()

    def fail(owner: str, no: int, exc: Exception) -> None:
        """One bad line is skipped, not the file; a source that fails on line after line
        (a bug, not one hostile line) is stopped for the rest of the file."""
        line_failures[owner] += 1
        if line_failures[owner] == 1:
            result.skipped.append(SkippedFile(
                path=ctx.display,
                reason=f"partly read: line {no} skipped by {owner}: {exc!r}"[:300]))
        if line_failures[owner] >= MAX_LINE_FAILURES:
            failed.add(owner)
            result.skipped.append(SkippedFile(
                path=ctx.display,
                reason=f"partly read: source {owner} stopped after {MAX_LINE_FAILURES} bad "
                       f"lines (last at line {no})"))

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
                raw_src, raw_key = only
                if raw_src.name not in failed:
                    try:
                        if not raw_src.skip(raw_key, no, raw):
                            raw_src.on_line(raw_key, ctx.line(no, raw))
                    except Exception as exc:
                        fail(raw_src.name, no, exc)
                return
        line = None
        for pid in ids:
            owner, key = owners[pid]
            if owner == CASE:
                counter = counters.get(key)
                if counter is None:
                    counter = counters[key] = Counter()
                    result.counts[key] = counter
                    result.hits[key] = []
                hits = result.hits[key]
                if len(hits) < head_cap:
                    if line is None:
                        try:
                            line = ctx.line(no, raw)
                        except ValueError as exc:
                            fail(CASE, no, exc)
                            return
                    hits.append(ctx.evidence(line, "case"))
                    rank = line.rank
                    if len(hits) == head_cap and ctx.file_rank is not None:
                        hand_over(key, counter)
                else:
                    tail = tails.get(key)
                    if tail is None:
                        tail = tails[key] = deque(maxlen=cap - head_cap)
                    tail.append((no, raw))
                    try:
                        rank = line.rank if line is not None else ctx.rank_of(no, raw)
                    except ValueError:
                        rank = None
                slot = -1 if rank is None else rank
                counter[slot] += 1
                limit = enough.get(key)
                if limit is not None and counter[slot] >= limit and single_rank(rank):
                    muted.add(scanned.index_of[pid])
                    result.saturated.add(key)
                continue
            src = sources.get(owner)
            if src is None or owner in failed:
                continue
            try:
                if owner in raw_filters and key in src.raw_keys and src.skip(key, no, raw):
                    continue
                if line is None:
                    if (
                        pid in suspicious_only
                        and ctx.suspicious_head_full()
                        and ctx.only_file_rank(raw)
                    ):
                        ctx.suspicious_raw(no, raw, owner)
                        continue
                    line = ctx.line(no, raw)
                src.on_line(key, line)
            except Exception as exc:
                fail(owner, no, exc)

    def finish() -> None:
        for key, idxs in case_indexes.items():
            counted = sum(tally.counts[i] for i in idxs)
            if counted:
                result.counts[key][-1 if ctx.file_rank is None else ctx.file_rank] += counted
                extra = [x for i in idxs for x in tally.tails.get(i, ())]
                merged = sorted([*tails.get(key, ()), *extra])[-(cap - head_cap) :]
                tails[key] = deque(merged, maxlen=cap - head_cap)
        for key, tail in tails.items():
            result.hits[key].extend(ctx.evidence(ctx.line(no, raw), "case") for no, raw in tail)
        tails.clear()
        src = sources.get("text-log")
        if src is None:
            return
        src.on_lines(PROGRESS[1], _last_per_rank(ctx, progress))
        progress.clear()

    return on_line, finish, muted, tally


_NON_ASCII_WORD = re.compile(r"[^\W\x00-\x7f]")
_WORDS = ("step", "epoch", "iter")  # literals of the progress pattern's word alternatives


@lru_cache(maxsize=1)
def _progress_matcher() -> Callable[[str], bool]:
    """`re.search(progress, text, re.IGNORECASE)`, answered by RE2 when that is the same answer.

    Python's `re` is the reference (Unicode digits are `\\d`, `ſ` matches `s` caselessly, `\\b`
    sees non-ASCII letters); RE2 on bytes agrees whenever no character outside ASCII is a word
    character, which is every tqdm bar, and is about seven times faster on these lines."""
    regex = dict(TextLogSource.patterns)[PROGRESS[1]][0]
    slow = re.compile(regex, re.IGNORECASE)
    fast = _line_regex(regex, True)

    def is_progress(text: str) -> bool:
        if text.isascii():
            # every alternative of the pattern needs one of these (ASCII case-folds plainly)
            lower = text.lower()
            if "%|" not in text and "/" not in text and not any(w in lower for w in _WORDS):
                return False
            return fast.search(text.encode("ascii")) is not None
        if _NON_ASCII_WORD.search(text) is None:
            return fast.search(text.encode("utf-8", "surrogatepass")) is not None
        return slow.search(text) is not None

    return is_progress


def _tail_progress(fs_path: str, total_lines: int, ctx: FileContext, src: LineSource) -> None:
    """The last progress lines of a large file, found in its last MiB (a seek, not a scan).

    The last 128 KiB are tried first: when they hold PROGRESS_TAIL progress lines, those are
    the ones the whole MiB would give (searched from the end), so the rest is not read."""
    is_progress = _progress_matcher()
    try:
        with open(fs_path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            end = fh.tell()
            for window in (min(TAIL_FIRST, TAIL_BYTES), TAIL_BYTES):
                fh.seek(max(0, end - window))
                data = fh.read(window)
                found = _progress_lines(data, end > window, total_lines, is_progress)
                if len(found) == PROGRESS_TAIL or end <= window or window == TAIL_BYTES:
                    break
    except OSError:
        return
    src.on_lines(PROGRESS[1], _last_per_rank(ctx, reversed(found)))


def _last_per_rank(ctx: FileContext, items: Iterable[tuple[int, bytes | str]]) -> list[Line]:
    """The last progress line of each rank, in the order the ranks first appear.

    What `TextLogSource.on_lines` keeps of all the lines, but only those few are decoded and
    attributed in full; the rest only need their rank (`ctx.rank_of`)."""
    last: dict[int, tuple[int, bytes | str] | Line] = {}
    for no, raw in items:
        if ctx.only_file_rank(raw):
            last[-1 if ctx.file_rank is None else ctx.file_rank] = (no, raw)
        else:
            line = ctx.line(no, raw)
            last[-1 if line.rank is None else line.rank] = line
    return [v if isinstance(v, Line) else ctx.line(*v) for v in last.values()]


def _progress_lines(
    data: bytes, cut: bool, total_lines: int, is_progress: Callable[[str], bool]
) -> list[tuple[int, str]]:
    """(line number, text) of the last PROGRESS_TAIL progress lines of a file's tail, last first."""
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    if cut:
        lines = lines[1:]  # the first piece is the end of a line cut by the seek
    first = total_lines - len(lines) + 1
    found: list[tuple[int, str]] = []
    for offset in range(len(lines) - 1, -1, -1):  # from the end: the last bars are the ones
        text = lines[offset][:65536].decode("utf-8", "replace")
        if is_progress(text):
            found.append((first + offset, text))
            if len(found) == PROGRESS_TAIL:
                break
    return found
