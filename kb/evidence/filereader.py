"""Reads one file: sniff the head, classify, then either parse it whole or scan it once.

The readable part of reading: which kind a file is, which rank (`attribution.decide_rank`),
which facts. The scan itself, with its per-line shortcuts, is behind one door
(`dispatch.scan_lines`): one pass serves every line source and every case pattern, and
Python only runs on lines that matched something.
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from typing import BinaryIO, cast

from kb.evidence.ansi import AnsiFree
from kb.evidence.attribution import RankClues, decide_rank
from kb.evidence.bounded import ByteStream, PrefixedStream
from kb.evidence.context import FileContext
from kb.evidence.dispatch import CaseHits, scan_lines
from kb.evidence.facts import EvidenceFile, Facts, SkippedFile
from kb.evidence.failures import READ_ERRORS, skip_reason
from kb.evidence.inputs import InputFile
from kb.evidence.limits import Limits
from kb.evidence.patterns import NOTES, Compiled, LogPattern, compile_patterns
from kb.evidence.patterns import check_patterns as check_patterns
from kb.evidence.progress import TAIL_FROM, tail_progress
from kb.evidence.ranks import PathHints, head_rank, path_hints
from kb.evidence.registry import LINE_SOURCES, SOURCES, classify
from kb.evidence.selection import scanned_in
from kb.evidence.sources.base import LineSource, WholeFileSource
from kb.evidence.sources.flight_recorder import DUMP_MAX, looks_like_dump, read_dump_file
from kb.evidence.unwrap import MAX_BYTES as UNWRAP_MAX
from kb.evidence.unwrap import unwrap

SUBSET_FROM = 8 << 20  # files at least this large are scanned only for patterns that count there
# kb run's record of what it ran (its command line would read as the job's own errors); what
# kb run observed is in kb-run-notes.md, written as notes on purpose
RUN_RECORD = "kb-run.json"
__all__ = [
    "UNWRAP_MAX",
    "FileResult",
    "LogPattern",
    "check_patterns",
    "compile_patterns",
    "read_file",
]


@dataclass(kw_only=True)
class FileResult(CaseHits):
    """What one file contributed; merged into the bundle by the reader."""

    file: EvidenceFile | None
    facts: Facts
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


def read_file(
    f: InputFile, patterns: tuple[LogPattern, ...], limits: Limits, hints: PathHints | None = None
) -> FileResult:
    """Reads one file into a FileResult; every failure becomes a SkippedFile."""
    hints = hints or path_hints(f.display)
    ctx = FileContext(display=f.display, hints=hints, limits=limits)
    result = FileResult(file=None, facts=ctx.facts)
    if f.name == RUN_RECORD:
        result.skipped.append(SkippedFile(path=f.display, reason="kb run's record, not evidence"))
        return result
    try:
        stream = f.open()  # an archive member's header is read here: corrupt ones fail too
    except READ_ERRORS as exc:
        reason = (
            skip_reason(exc)
            if not isinstance(exc, OSError) or isinstance(exc, PermissionError)
            else f"unreadable: {exc.strerror or exc}"
        )
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


def _clues(ctx: FileContext, head_text: str) -> RankClues:
    clues = RankClues(display=ctx.display, hints=ctx.hints)
    try:
        clues.said, clues.how = head_rank(head_text)
    except ValueError:  # a hostile number (thousands of digits) in a prefix names no rank
        clues.head_failed = True
    return clues


def _read(
    stream: ByteStream,
    f: InputFile,
    ctx: FileContext,
    result: FileResult,
    patterns: tuple[LogPattern, ...],
    limits: Limits,
) -> None:
    head = _read_up_to(stream, limits.head_bytes)
    if looks_like_dump(head):  # a Flight Recorder dump is a pickle: read before the text checks
        data = head + _read_up_to(stream, DUMP_MAX - len(head) + 1)
        result.file, why = read_dump_file(data, f.name, ctx)
        result.skipped.extend([SkippedFile(path=f.display, reason=why)] if why else [])
        return
    # terminal colours and other escapes go before anything reads the text (see ansi.py)
    stream = AnsiFree(PrefixedStream(head, stream))
    head = _read_up_to(stream, limits.head_bytes)
    problem = head_problem(head, limits)
    if problem:
        result.skipped.append(SkippedFile(path=f.display, reason=problem))
        return
    head_text = head.decode("utf-8", "replace")
    kind = f.kind or classify(head_text, f.name)
    clues = _clues(ctx, head_text)
    first = decide_rank(clues)
    ctx.file_rank = first.rank
    if first.conflict:
        ctx.facts.conflicts.append(first.conflict)
    from_tail = f.fs_path is not None and not f.gz and f.size > TAIL_FROM
    size = lines = 0
    body: ByteStream = PrefixedStream(head, stream)
    if issubclass(SOURCES[kind], WholeFileSource):
        data = head + _read_up_to(stream, limits.whole_file_max - len(head) + 1)
        if len(data) <= limits.whole_file_max:
            size, lines = _read_whole(data, kind, f, ctx, result, patterns, from_tail)
        else:
            result.skipped.append(
                SkippedFile(
                    path=f.display,
                    reason=f"too large for {kind} (over {limits.whole_file_max} "
                    "bytes); scanned as a text log instead",
                )
            )
            kind, body = "text-log", PrefixedStream(data, stream)
    if not issubclass(SOURCES[kind], WholeFileSource):
        compiled = compile_patterns(_wanted(patterns, kind, f), progress=not from_tail)
        size, lines = _read_lines(body, stream, f, ctx, result, compiled, from_tail)
    clues.lines_read = True
    clues.line_ranks = ctx.line_ranks
    clues.process_ranks = set(ctx.pid_ranks.items().values())
    settled = decide_rank(clues)
    result.file = EvidenceFile(
        path=f.display, kind=kind, rank=settled.rank, rank_from=settled.source,
        node=ctx.hints.node, size=size or f.size, lines=lines,
    )  # fmt: skip
    result.world_size = max(ctx.world_sizes) if ctx.world_sizes else None


def _read_whole(
    data: bytes,
    kind: str,
    f: InputFile,
    ctx: FileContext,
    result: FileResult,
    patterns: tuple[LogPattern, ...],
    from_tail: bool,
) -> tuple[int, int]:
    """A whole-file kind (pip freeze, nvidia-smi…): parsed at once, then scanned for the
    case patterns only. Returns (bytes, lines)."""
    cls = cast(type[WholeFileSource], SOURCES[kind])
    text = data.decode("utf-8", "replace")
    _guarded(ctx, result, kind, lambda: cls(ctx).parse(text))
    compiled = compile_patterns(_wanted(patterns, kind, f), progress=not from_tail)
    sets = [compiled.case_set, compiled.notes_set() if kind == NOTES else None]
    for scanned in sets:  # the notes-only patterns are a set of their own (see patterns.py)
        if scanned is not None:
            scan_lines(io.BytesIO(data), ctx, result, compiled, scanned, {})
    return len(data), text.count("\n") + (0 if not text or text.endswith("\n") else 1)


def _read_lines(
    body: ByteStream,
    stream: ByteStream,
    f: InputFile,
    ctx: FileContext,
    result: FileResult,
    compiled: Compiled,
    from_tail: bool,
) -> tuple[int, int]:
    """A line kind: one scan for every line source and case pattern. Returns (bytes, lines)."""
    if f.size <= UNWRAP_MAX:
        # a small paste: join the lines a terminal wrapped (numbering kept, see unwrap.py)
        data = _read_up_to(body, UNWRAP_MAX + 1)
        body = io.BytesIO(unwrap(data)) if len(data) <= UNWRAP_MAX else PrefixedStream(data, stream)
    sources: dict[str, LineSource] = {c.name: c(ctx) for c in LINE_SOURCES}
    stats = scan_lines(cast(BinaryIO, body), ctx, result, compiled, compiled.log_set, sources)
    if from_tail and f.fs_path is not None and "text-log" in sources:
        tail_progress(f.fs_path, stats.lines, ctx, sources["text-log"])
    ctx.finish_lines()
    for src in sources.values():
        _guarded(ctx, result, src.name, src.finish)
    return stats.bytes, stats.lines


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
