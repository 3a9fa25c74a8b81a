"""Per-file state shared by the sources reading that file: its facts, ranks and line cache."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from kb.evidence.facts import EvidenceLine, Facts
from kb.evidence.limits import Limits
from kb.evidence.ranks import (
    PathHints,
    PidRanks,
    content_rank,
    device_rank,
    nccl_pid,
    strip_prefixes,
    timestamp,
)


@dataclass
class Line:
    """One matched line, decoded once and shared by every source interested in it."""

    no: int
    text: str  # as in the file (decoded, without the newline)
    body: str  # launcher prefixes removed
    rank: int | None
    timestamp: str | None
    pid: int | None
    explicit_rank: bool  # rank came from the line itself, not from the file


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
    _cache: tuple[int, Line] | None = None
    _suspicious_at: set[int] = field(default_factory=set)

    def line(self, no: int, raw: bytes | str) -> Line:
        """Decodes and attributes a line (cached: several sources may look at the same one)."""
        if self._cache is not None and self._cache[0] == no:
            return self._cache[1]
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        text = text.rstrip("\r\n")
        s = strip_prefixes(text)
        body = s.body
        rank = s.rank
        if rank is None:
            rank = content_rank(body)
        explicit = rank is not None
        if rank is None and s.local_rank is not None and self.file_rank is None:
            rank = s.local_rank if self.hints.node_index is None else None
            explicit = rank is not None
        pid = s.pid if s.pid is not None else nccl_pid(body) if " NCCL " in body else None
        if rank is None:
            rank = self.file_rank
        if rank is None:
            rank = self.pid_ranks.get(pid)
        if rank is None:
            rank = device_rank(body)
        if explicit and rank is not None:
            self.line_ranks[rank] += 1
        line = Line(no, text, body, rank, timestamp(body), pid, explicit)
        self._cache = (no, line)
        return line

    def evidence(self, line: Line, source: str) -> EvidenceLine:
        ev = EvidenceLine(
            file=self.display,
            line=line.no,
            rank=line.rank,
            text=line.text[:2000],
            timestamp=line.timestamp,
            source=source,
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

    def room(self, items: list[object]) -> bool:
        """Caps per-file lists so one runaway log cannot flood the facts."""
        return len(items) < self.limits.lines_per_kind

    def suspicious(self, line: Line, source: str) -> None:
        """Records an error/warning line once, whichever sources flagged it."""
        if line.no in self._suspicious_at or not self.room(self.facts.suspicious):  # type: ignore[arg-type]
            return
        self._suspicious_at.add(line.no)
        self.facts.suspicious.append(self.evidence(line, source))
