"""Ascend plog / HCCL / torch_npu: HCCL_ENTRY_LOG_ENABLE collective entries, EI000x and ERR0xxxx
codes, heartbeat and cluster-exception lines, HCCL settings in effect.

>>> from kb.evidence.sources.plog import parse_entry
>>> parse_entry("[INFO] HCCL(1,python):2025-01-01-10:00:00.000.001 [op.cc:1] [1]Entry-HcclAllReduce:tag[AllReduce_1], sendBuf[0x1], recvBuf[0x2], count[531260224], dataType[float32], reduceOp[sum], streamId[5], deviceId[1]")
('allreduce', 531260224, 'float32')
>>> parse_entry("Entry-HcclCommInitRootInfoInner:ranks[4], rank[2], rootinfo: host ip[1.2.3.4]") is None
True
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import ClassVar

from kb.evidence.context import FileContext, Line
from kb.evidence.facts import EnvCapture
from kb.evidence.fastpath import RANK_BYTES
from kb.evidence.lazy_pattern import lazy
from kb.evidence.ranks import bracket_field
from kb.evidence.sources.base import LineSource
from kb.evidence.sources.collectives import CollectiveLog
from kb.evidence.sources.common import log_score, normalize_op

_NAME = lazy(r"Hccl\w+")
_WORD = lazy(r"\w+")
_RANKS = lazy(r"\branks\[(\d+)\]|rankSize\[(\d+)\]")
_ENV = lazy(r"\[HCCL_ENV\]\s*(\w+) set by (?:default|environment) to \[?([^\]\s]+)\]?")
_HEAD = lazy(
    r"^\[(ERROR|WARNING|INFO|DEBUG|EVENT|TRACE)\]\s?[A-Z_]+\(\d+,|Entry-Hccl|HCCL_ENV|\bEI\d{4}\b"
)
_NOT_COLLECTIVE = ("comm", "get", "set", "create", "destroy", "init", "mem", "register", "group")


def parse_entry(body: str) -> tuple[str, int | None, str | None] | None:
    """(op, count, dtype) of an Entry-Hccl<Op> line, None for non-collective entries.

    Found with `str.find` (one of these lines per collective; see `bracket_field`)."""
    at = body.find("Entry-Hccl")
    if at < 0:
        return None
    end = body.find(":", at)
    op = _collective(body[at + 6 : end]) if end > 0 else None
    if op is None:
        return None
    count = bracket_field(body, "count", word_start=True)
    return op, count[1] if count else None, _dtype(body)


@lru_cache(maxsize=256)
def _collective(name: str) -> str | None:
    """`HcclAllReduceInner` → `allreduce`; None for a name that is not a collective."""
    if not _NAME.fullmatch(name):
        return None
    op = normalize_op(name[:-5] if name.endswith("Inner") and len(name) > 9 else name)
    return None if op.startswith(_NOT_COLLECTIVE) else op


def _dtype(body: str) -> str | None:
    at = body.find("dataType[")
    while at >= 0:
        end = body.find("]", at + 9)
        if end > at + 9 and _WORD.fullmatch(body, at + 9, end):
            return body[at + 9 : end]
        at = body.find("dataType[", at + 1)
    return None


class PlogSource(LineSource):
    name = "plog"
    description = "Ascend CANN plog / HCCL / torch_npu logs"
    patterns: ClassVar[dict[str, tuple[str, bool]]] = {
        "entry": (r"Entry-Hccl\w+:", False),
        "ei": (r"\bEI\d{4}\b", False),
        "err": (r"\bERR\d{5}\b|HCCL function error", False),
        "heartbeat": (r"HeartbeatAbnormal|Cluster Exception Location|\[Timeout\]", False),
        "plog_error": (r"^\[ERROR\][ \t]?[A-Z_]+\(\d+,", False),
        "env": (r"\[HCCL_ENV\]", False),
        "ranks": (r"rankSize\[\d+\]", False),
    }

    raw_keys: ClassVar[frozenset[str]] = frozenset({"entry"})
    suspicious_keys: ClassVar[frozenset[str]] = frozenset({"ei", "err", "heartbeat", "plog_error"})

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._ordinal: Counter[int] = Counter()
        self._ops = CollectiveLog(self.ctx, self.name)
        self._env = EnvCapture(file=self.ctx.display)

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        score = log_score(head, _HEAD)
        if re.match(r"plog-\d+", name) or name.startswith("device-"):
            score = max(score, 0.6) + 0.2
        return score

    def skip(self, key: str, no: int, raw: bytes) -> bool:
        """An entry line of the file's own rank (no other rank named on it) is recorded from
        its text alone: there is one per collective, hundreds of thousands in a long run."""
        rank = self.ctx.file_rank
        if rank is None or self._ops.full() or RANK_BYTES in raw.lower():
            return False  # ranks[…] lines (world size) and other ranks' lines: the full path
        text = raw.decode("utf-8", "replace")
        got = parse_entry(text)
        if got is None:
            return True  # a non-collective entry (mem, comm…) adds nothing
        op, count, dtype = got
        self._ordinal[rank] += 1
        self._ops.add_raw(no, raw, rank, op, self._ordinal[rank], count, dtype)
        return True

    def on_line(self, key: str, line: Line) -> None:
        body = line.body
        if key == "entry":
            if "ranks[" in body or "rankSize[" in body:
                m = _RANKS.search(body)
                if m:
                    self.ctx.world_sizes.add(int(m.group(1) or m.group(2)))
            got = parse_entry(body) if not self._ops.full() else None
            if got:
                op, count, dtype = got
                rank = -1 if line.rank is None else line.rank
                self._ordinal[rank] += 1
                self._ops.add(line, op, self._ordinal[rank], count, dtype)
        elif key == "env":
            m = _ENV.search(body)
            if m:
                self._env.variables[m.group(1)] = m.group(2)
                self._env.lines[m.group(1)] = line.no
        elif key == "ranks":
            m = _RANKS.search(body)
            if m:
                self.ctx.world_sizes.add(int(m.group(1) or m.group(2)))
        else:
            self.ctx.suspicious(line, self.name)

    def finish(self) -> None:
        self._ops.finish()
        if self._env.variables:
            self.ctx.facts.env_captures.append(self._env)
