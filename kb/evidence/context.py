"""Per-file state shared by the sources reading that file: its facts, ranks and line cache
(its suspicious lines are `suspicious.SuspiciousLines`)."""

from __future__ import annotations

import copyreg
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from kb.evidence.facts import EvidenceLine, Facts
from kb.evidence.fastpath import RANK_BYTES, RANK_LETTERS, prefix_rank
from kb.evidence.limits import Limits
from kb.evidence.ranks import (
    GREP_HINTS,
    PathHints,
    PidRanks,
    content_rank,
    device_rank,
    grep_prefix,
    nccl_pid,
    path_hints,
    strip_prefixes,
    timestamp,
)
from kb.evidence.suspicious import _UNSET as _NO_RANK
from kb.evidence.suspicious import SuspiciousLines

_UNSET: Any = object()


class Line:
    """One matched line, decoded once and shared by every source interested in it.

    The timestamp is only looked for when a source asks (most matched lines are never shown).
    """

    __slots__ = ("_timestamp", "body", "explicit_rank", "no", "pid", "rank", "text")

    def __init__(
        self,
        no: int,
        text: str,  # as in the file (decoded, without the newline)
        body: str,  # launcher prefixes removed
        rank: int | None,
        timestamp: str | None = _UNSET,
        pid: int | None = None,
        explicit_rank: bool = False,  # rank came from the line itself, not from the file
    ) -> None:
        self.no, self.text, self.body, self.rank = no, text, body, rank
        self._timestamp = timestamp
        self.pid, self.explicit_rank = pid, explicit_rank

    @property
    def timestamp(self) -> str | None:
        ts = self._timestamp
        if ts is _UNSET:
            ts = self._timestamp = timestamp(self.body)
        return ts

    def __repr__(self) -> str:
        return (
            f"Line(no={self.no!r}, text={self.text!r}, body={self.body!r}, rank={self.rank!r}, "
            f"timestamp={self.timestamp!r}, pid={self.pid!r}, explicit_rank={self.explicit_rank!r})"
        )


class _Counted:
    """A line whose rank was read from its `[rankN]:` prefix (`fastpath.prefix_rank`) and
    counted in `line_ranks`: decoded only if a source asks for it, and not counted again."""

    __slots__ = ("rank", "raw")

    def __init__(self, raw: bytes, rank: int) -> None:
        self.raw, self.rank = raw, rank


def evidence_line(
    file: str, line: int, rank: int | None, text: str, timestamp: str | None, source: str
) -> EvidenceLine:
    """`EvidenceLine(...)` by position (also how one is unpickled)."""
    return EvidenceLine(
        file=file, line=line, rank=rank, text=text, timestamp=timestamp, source=source
    )


def _reduce_evidence_line(ev: EvidenceLine) -> tuple[Any, ...]:
    """Pickles an EvidenceLine as its six values: worker processes send tens of thousands
    back to the parent, and a tuple is smaller and faster than the generic field dict."""
    return (evidence_line, (ev.file, ev.line, ev.rank, ev.text, ev.timestamp, ev.source))


copyreg.pickle(EvidenceLine, _reduce_evidence_line)


@dataclass
class FileContext:
    """What the sources of one file write into; merged into the bundle's Facts afterwards."""

    display: str
    hints: PathHints
    limits: Limits
    file_rank: int | None = None
    facts: Facts = field(default_factory=Facts)
    pid_ranks: PidRanks = field(default_factory=PidRanks)
    world_sizes: set[int] = field(default_factory=set)
    line_ranks: Counter[int] = field(default_factory=Counter)
    _pending: list[tuple[int, EvidenceLine]] = field(default_factory=list)
    _cache: tuple[int, Line | _Counted] | None = None

    def line(self, no: int, raw: bytes | str) -> Line:
        """Decodes and attributes a line (cached: several sources may look at the same one)."""
        cache = self._cache
        if cache is not None and cache[0] == no:
            found = cache[1]
            if isinstance(found, Line):
                return found
            line = self._decode(no, found.raw)  # its rank is counted already (rank_of)
            self._cache = (no, line)
            return line
        line = self._decode(no, raw)
        if line.explicit_rank and line.rank is not None:
            self.line_ranks[line.rank] += 1
        self._cache = (no, line)
        return line

    def _decode(self, no: int, raw: bytes | str) -> Line:
        """The line read and attributed; `line` counts the rank it names and caches it."""
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        text = text.rstrip("\r\n")
        # a line pasted from `grep -H` (`logs/rank3.log:12:…`): its path is the file's, as if
        # that file had been handed over; what follows is read like any line
        rest, path_rank = text, None
        head = text[:256]
        if any(hint in head for hint in GREP_HINTS):
            grepped = grep_prefix(text)
            if grepped is not None:
                rest, path_rank = grepped[1], path_hints(grepped[0]).rank
        # cheap substring tests first: each regex below needs its literal to be on the line
        first = rest[:1]
        if (first == "[" and "]:" in rest) or (first == "(" and " pid=" in rest):
            s = strip_prefixes(rest)
            body, rank, local_rank, pid = s.body, s.rank, s.local_rank, s.pid
        else:
            body, rank, local_rank, pid = rest, None, None, None
        if rank is None and RANK_LETTERS in body:  # content_rank needs "Rank" or "rank"
            rank = content_rank(body)
        if rank is None:
            rank = path_rank
        explicit = rank is not None
        if rank is None and local_rank is not None and self.file_rank is None:
            rank = local_rank if self.hints.node_index is None else None
            explicit = rank is not None
        if pid is None and " NCCL " in body:
            pid = nccl_pid(body)
        if rank is None:
            rank = self.file_rank
        if rank is None and pid is not None:
            rank = self.pid_ranks.get(pid)
        if rank is None and ("Id[" in body or "localRank[" in body):
            rank = device_rank(body)
        return Line(no, text, body, rank, _UNSET, pid, explicit)

    def only_file_rank(self, raw: bytes | str) -> bool:
        """True when the line's rank can only be the file's. With a file rank, `line` takes
        another only from a `[rankN]:` prefix or a rank in the message, and both spell `rank`
        (any case); other prefixes (`[default0]:`, Ray's pid) give way to the file's rank.
        Lets callers skip decoding lines they only count by rank."""
        if self.file_rank is None:
            return False
        if isinstance(raw, str):
            return RANK_LETTERS not in raw.lower()
        return RANK_BYTES not in raw.lower()

    def rank_of(self, no: int, raw: bytes | str) -> int | None:
        """`self.line(no, raw).rank`, without decoding when `only_file_rank` says it may, or
        when the line's only rank prefix says it (`prefix_rank`: a console's counted lines)."""
        if self._cache is not None and self._cache[0] == no:
            return self._cache[1].rank
        if self.only_file_rank(raw):
            return self.file_rank
        if isinstance(raw, bytes):
            rank = prefix_rank(raw)
            if rank is not None:
                self.line_ranks[rank] += 1  # as `line` counts a rank the line names
                self._cache = (no, _Counted(raw, rank))
                return rank
        return self.line(no, raw).rank

    def evidence(self, line: Line, source: str) -> EvidenceLine:
        ev = evidence_line(
            self.display, line.no, line.rank, line.text[:2000], line.timestamp, source
        )
        if line.rank is None and line.pid is not None:
            self._pending.append((line.pid, ev))
        return ev

    def resolve_pending(self) -> None:
        """NCCL lines seen before their pid's init line get their rank now."""
        for pid, ev in self._pending:
            if ev.rank is None:
                ev.rank = self.pid_ranks.get(pid)
        self._pending.clear()

    def __post_init__(self) -> None:
        self.suspects = SuspiciousLines(
            self.facts.suspicious, self.limits.suspicious_per_file, self.line, self.evidence
        )

    def suspicious(self, line: Line, source: str, rank: int | None = _NO_RANK) -> None:
        """Records an error/warning line once (`SuspiciousLines`); `rank` overrides the
        line's own (torchrun's failure table names the rank that failed)."""
        self.suspects.add(line, source, rank)

    def finish_lines(self) -> None:
        """Once a file is read: the suspicious tail joins the facts, then NCCL lines seen
        before their pid's init line get their rank."""
        self.suspects.finish()
        self.resolve_pending()
