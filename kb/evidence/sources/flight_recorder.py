"""PyTorch Flight Recorder dumps: the per-rank record of recent collectives that
ProcessGroupNCCL (and Gloo, HCCL in torch_npu) writes on a watchdog timeout when
`TORCH_NCCL_TRACE_BUFFER_SIZE` > 0 and `TORCH_NCCL_DUMP_ON_TIMEOUT=1`.

Format, from PyTorch's own source: `DebugInfoWriter` writes the file
`${TORCH_NCCL_DEBUG_INFO_TEMP_FILE}<rank>` (default prefix `/tmp/nccl_trace_rank_`) with
`pickle_str(dump_dict(...))`, a protocol-2 pickle made by `torch::jit::Pickler` without type
tags (`FlightRecorderDetail.hpp`, `TraceUtils.h`). Its top level is a dict: `version`,
`pg_config` (name -> {name, desc, ranks}), `pg_status` (pg id -> last enqueued / started /
completed collective), `entries`: one dict per collective with `pg_id`, `process_group`
(name, desc), `collective_seq_id`, `p2p_seq_id`, `op_id`, `profiling_name` ("nccl:all_reduce"),
`input_sizes`, `input_dtypes`, `output_sizes`, `output_dtypes`, `state` (scheduled, started,
completed), `retired`, `timeout_ms`, `is_p2p`, `frames`. PyTorch's reader
(`tools/flight_recorder/components/loader.py`) calls `pickle.load` on it.

We never do: a dump comes from a stranger. The reader accepts only the opcodes that build
dicts, lists, tuples, strings, bytes, numbers, booleans and None (what the writer emits),
refuses every class lookup, and bounds the file size, the number of objects and the nesting.
"""

from __future__ import annotations

import io
import pickle
from typing import Any

from kb.evidence.context import FileContext
from kb.evidence.facts import CollectiveOp, EvidenceFile, EvidenceLine, QueuePosition
from kb.evidence.lazy_pattern import lazy
from kb.evidence.sources.base import Source
from kb.evidence.sources.common import normalize_op, product

DUMP_MAX = 16 << 20  # bytes of one dump (2000 entries with stack frames fit many times over)
MAX_OPS = 2_000_000  # pickle opcodes, i.e. objects built
MAX_DEPTH = 32  # nesting of containers (the format needs 5)
MAX_INT = 1 << 63
_NAME = lazy(r"(?:^|[/_.-])(?:nccl|hccl|gloo|fr)?_?trace_rank_(\d{1,9})$|_rank_?(\d{1,9})$")

# what torch::jit::Pickler (and Python's protocol-2 pickler, for the same values) emits
ALLOWED = frozenset({
    "PROTO", "FRAME", "STOP", "MARK", "EMPTY_DICT", "EMPTY_LIST", "EMPTY_TUPLE", "SETITEM",
    "SETITEMS", "APPEND", "APPENDS", "TUPLE", "TUPLE1", "TUPLE2", "TUPLE3", "BINUNICODE",
    "SHORT_BINUNICODE", "BINUNICODE8", "BINBYTES", "SHORT_BINBYTES", "BINBYTES8", "BININT",
    "BININT1", "BININT2", "LONG1", "BINFLOAT", "NEWTRUE", "NEWFALSE", "NONE", "BINPUT",
    "LONG_BINPUT", "BINGET", "LONG_BINGET", "MEMOIZE",
})  # fmt: skip


class DumpError(ValueError):
    """A file that looks like a dump but is not one we accept; the message says why."""


class _NoClasses(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        raise DumpError(f"refers to a class ({module}.{name}); a Flight Recorder dump has none")

    def persistent_load(self, pid: Any) -> Any:
        raise DumpError("holds a persistent reference; a Flight Recorder dump has none")


def looks_like_dump(head: bytes) -> bool:
    """A protocol-2 pickle of a dict that names the dump's keys early."""
    return head.startswith(b"\x80\x02}") and (b"entries" in head or b"pg_config" in head)


def load_dump(data: bytes) -> dict[str, Any]:
    """The dump's top-level dict, read safely; raises DumpError."""
    if len(data) > DUMP_MAX:
        raise DumpError(f"over {DUMP_MAX >> 20} MiB")
    import pickletools  # a large module, needed only when there is a dump to read

    count = 0
    try:
        for op, _arg, _pos in pickletools.genops(data):
            count += 1
            if op.name not in ALLOWED:
                raise DumpError(f"uses the pickle opcode {op.name}, which a dump never holds")
            if count > MAX_OPS:
                raise DumpError(f"holds over {MAX_OPS} objects")
    except (ValueError, EOFError, IndexError, KeyError) as exc:
        if isinstance(exc, DumpError):
            raise
        raise DumpError(f"corrupt pickle ({exc})") from None
    try:
        value = _NoClasses(io.BytesIO(data)).load()
    except DumpError:
        raise
    except Exception as exc:  # corrupt streams raise many kinds; none may escape
        raise DumpError(f"corrupt pickle ({type(exc).__name__})") from None
    if not isinstance(value, dict):
        raise DumpError("its top level is not a dict")
    _check_depth(value)
    return value


def _check_depth(value: Any) -> None:
    """Nesting within bounds; a cycle (a memo trick the writer never plays) nests forever, and
    shared parts are counted each time they are reached, so neither can stall the walk."""
    todo = [(value, 1)]
    visits = 0
    while todo:
        item, depth = todo.pop()
        if not isinstance(item, dict | list | tuple):
            continue
        visits += 1
        if depth > MAX_DEPTH:
            raise DumpError(f"nests deeper than {MAX_DEPTH} levels")
        if visits > MAX_OPS:
            raise DumpError(f"holds over {MAX_OPS} containers once shared parts are counted")
        children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
        todo.extend((child, depth + 1) for child in children)


def _int(value: Any) -> int | None:
    return (
        value
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < MAX_INT
        else None
    )


def _str(value: Any, limit: int = 200) -> str:
    return value[:limit] if isinstance(value, str) else ""


def op_name(profiling_name: str) -> str:
    """`nccl:all_reduce` -> `allreduce`; `nccl:send 1->2` -> `send`.

    >>> [op_name(n) for n in ("nccl:all_reduce", "gloo:broadcast", "nccl:send 0->1", "nccl:_allgather_base")]
    ['allreduce', 'broadcast', 'send', 'allgather']
    """
    body = profiling_name.split(":", 1)[-1].split(" ", 1)[0]
    return normalize_op(body)


def _numel(sizes: Any) -> int | None:
    if not isinstance(sizes, list) or not sizes or not isinstance(sizes[0], list):
        return None
    dims = [d for d in sizes[0] if _int(d) is not None]
    return product(dims) if len(dims) == len(sizes[0]) and product(dims) < MAX_INT else None


def describe(entry: dict[str, Any]) -> str:
    """One line per entry, as shown next to a verdict."""
    pg = entry.get("process_group")
    pg_name = _str(pg[1] if isinstance(pg, tuple | list) and len(pg) == 2 else "") or "?"
    return (f"{_str(entry.get('profiling_name')) or '?'} collective_seq_id="
            f"{_int(entry.get('collective_seq_id'))} pg={pg_name} "
            f"input_sizes={_str(repr(entry.get('input_sizes')), 120)} "
            f"state={_str(entry.get('state')) or '?'}")  # fmt: skip


def rank_from_name(name: str) -> int | None:
    """`nccl_trace_rank_3` -> 3 (the writer appends the rank to the prefix)."""
    m = _NAME.search(name)
    if not m:
        return None
    return int(m.group(1) or m.group(2))


class FlightRecorderSource(Source):
    """Not a text source: the reader hands it the dump's bytes (`parse_bytes`)."""

    name = "flight-recorder"
    description = "PyTorch Flight Recorder dumps (TORCH_NCCL_DUMP_ON_TIMEOUT, pickled)"

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx

    def parse_bytes(self, data: bytes, file_name: str) -> None:
        dump = load_dump(data)
        facts, ctx = self.ctx.facts, self.ctx
        rank = rank_from_name(file_name)
        if rank is None:
            rank = ctx.file_rank
        ctx.file_rank = rank
        entries = dump.get("entries")
        entries = entries if isinstance(entries, list) else []
        for no, entry in enumerate(entries, 1):
            if (
                not isinstance(entry, dict)
                or len(facts.collectives) >= ctx.limits.collectives_per_file
            ):
                continue
            name = _str(entry.get("profiling_name"))
            if not name:
                continue
            seq = _int(
                entry.get("p2p_seq_id") if entry.get("is_p2p") else entry.get("collective_seq_id")
            )
            dtypes = entry.get("input_dtypes")
            dtype = _str(dtypes[0], 40) if isinstance(dtypes, list) and dtypes else None
            ev = EvidenceLine(file=ctx.display, line=no, rank=rank, text=describe(entry),
                              source=self.name)  # fmt: skip
            facts.collectives.append(CollectiveOp(
                rank=-1 if rank is None else rank, op=op_name(name), seq=seq,
                count=_numel(entry.get("input_sizes")), dtype=dtype or None, evidence=ev,
                file=ctx.display, line=no,
            ))  # fmt: skip
        status = dump.get("pg_status")
        default = status.get("0") if isinstance(status, dict) else None
        if isinstance(default, dict) and _int(default.get("last_enqueued_collective")) is not None:
            enq = _int(default.get("last_enqueued_collective"))
            done = _int(default.get("last_completed_collective"))
            assert enq is not None
            facts.queue_positions.append(QueuePosition(
                rank=rank, last_enqueued=enq, last_completed=done,
                evidence=EvidenceLine(
                    file=ctx.display, line=0, rank=rank, source=self.name,
                    text=f"pg_status default_pg: last_enqueued_collective={enq}, "
                    f"last_completed_collective={done}",
                ),
            ))  # fmt: skip


def read_dump_file(data: bytes, name: str, ctx: FileContext) -> tuple[EvidenceFile | None, str]:
    """What the file reader records for a dump: the file, or why it was skipped."""
    try:
        FlightRecorderSource(ctx).parse_bytes(data, name)
    except DumpError as exc:
        return None, f"not a readable Flight Recorder dump: {exc}"
    by_path: Any = "path"  # the file name ends in the rank (RankFrom.PATH, a str enum)
    file = EvidenceFile(
        path=ctx.display, kind=FlightRecorderSource.name, rank=ctx.file_rank,
        rank_from=None if ctx.file_rank is None else by_path, node=ctx.hints.node,
        size=len(data), lines=len(ctx.facts.collectives),
    )  # fmt: skip
    return file, ""
