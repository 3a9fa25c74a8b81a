"""`said` queries: a log query over the user's notes, where a line that names an event only to
deny it ("nothing hung", "it does not hang", "没有卡住") does not count (`dsl.catalogue.negation`)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from dsl.catalogue.negation import affirmed, deniable
from kb.evidence.reader import PatternHits
from kb.match.context import NO_RANK, Context
from kb.match.kinds import log
from kb.match.regex import compiled
from kb.match.results import QueryResult

if TYPE_CHECKING:
    from dsl.kinds.said import SaidQuery
    from kb.evidence.facts import EvidenceLine


def evaluate(q: SaidQuery, ctx: Context) -> QueryResult:
    hits = ctx.bundle.hits.get(f"{ctx.case_id}/{q.name}")
    if hits is None or not hits.lines or not deniable(q.words):
        return log.evaluate(q, ctx)
    program = compiled(q.pattern.pattern, q.pattern.ignore_case)  # only for a query that hit
    if program is None:
        return log.evaluate(q, ctx)
    denied = [ln for ln in hits.lines if not affirmed(program, ln.text)]
    return log.evaluate(q, ctx, hits=_without(hits, denied) if denied else hits)


def _without(hits: PatternHits, denied: list[EvidenceLine]) -> PatternHits:
    """`hits` less the `denied` lines, in its lines and in its per-file, per-rank counts."""
    less: Counter[tuple[str, int]] = Counter(
        (ln.file, NO_RANK if ln.rank is None else ln.rank) for ln in denied
    )
    counts = {
        path: {r: n - less[(path, r)] for r, n in by_rank.items() if n > less[(path, r)]}
        for path, by_rank in hits.counts.items()
    }
    gone = {id(ln) for ln in denied}
    return PatternHits(
        lines=[ln for ln in hits.lines if id(ln) not in gone],
        counts={path: by_rank for path, by_rank in counts.items() if by_rank},
        saturated=list(hits.saturated),
    )
