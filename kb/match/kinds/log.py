"""`log` queries: the scan hits of the query's pattern, counted per rank and held to its scope."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from dsl.choices import Scope
from kb.evidence.facts import EvidenceLine
from kb.evidence.selection import WORDS_ONLY, glob_ok, quoted_parts
from kb.match.context import MAX_LINES, NO_RANK, Context
from kb.match.regex import search
from kb.match.results import QueryResult, Truth
from kb.scan.regexes import extract

if TYPE_CHECKING:  # a warm run evaluates the snapshot's records (kb.cache.records)
    from dsl.kinds.log import LogQuery
    from kb.evidence.reader import PatternHits


# A user's own words and their scripts are not tool output: "no linkdown in syslog" must not
# count as a link-down line, nor `print("Preparing models")` as a run that got there. Such
# files are searched only by queries that ask for their kind by name (WORDS_ONLY).


def _file_ok(ctx: Context, path: str, q: LogQuery) -> bool:
    kind = ctx.kind_of.get(path)
    if q.sources and kind not in q.sources:
        return False
    if not q.sources and kind in WORDS_ONLY:
        return False
    return glob_ok(path, q.files)


def _eligible(ctx: Context, q: LogQuery) -> tuple[list[str], set[str]]:
    """The files the query may read, in order and as a set: the same for every query of the
    case with its `sources` and `files` (most have neither), so worked out once per case."""
    key = ("log-eligible", tuple(q.sources), tuple(q.files))
    found: tuple[list[str], set[str]] | None = ctx.memo.get(key)
    if found is None:
        paths = [f.path for f in ctx.facts.files if _file_ok(ctx, f.path, q)]
        found = ctx.memo[key] = (paths, set(paths))
    return found


def _quoted_hits(q: LogQuery, ctx: Context) -> list[EvidenceLine]:
    """Lines of a user's notes that are pasted tool output: inside a ``` block, or with the
    match inside `backticks` ("I get `NCCL WARN …`"). Those are log lines again; the
    surrounding prose ("no linkdown in syslog") is not."""
    if q.sources or q.files:
        return []
    hits = ctx.bundle.hits.get(f"{ctx.case_id}/{q.name}")
    if hits is None:
        return []
    pasted = ctx.facts.pasted
    out = []
    for ln in hits.lines:
        if ctx.kind_of.get(ln.file) != "notes":
            continue
        if any(f == ln.file and first <= ln.line <= last for f, first, last in pasted):
            out.append(ln)
            continue
        quoted = quoted_parts(ln.text)
        if any(search(q.pattern.pattern, part, q.pattern.ignore_case) for part in quoted):
            out.append(ln)
    return out


def evaluate(q: LogQuery, ctx: Context, hits: PatternHits | None = None) -> QueryResult:
    """The query's truth from its scan hits (`hits` in place of the scan's own when a kind
    has already set some aside: `said` drops the lines that deny what they name)."""
    eligible, allowed = _eligible(ctx, q)
    quoted = _quoted_hits(q, ctx)
    if not eligible and not quoted:
        what = ("files of kind " + " or ".join(q.sources)) if q.sources else "log files"
        if q.sources == ["notes"]:
            what = "notes in the user's words"
        if q.files:
            what += " named " + " or ".join(q.files)
        return QueryResult(
            name=q.name, kind=q.kind, truth=Truth.UNKNOWN, detail=f"no {what} were handed over"
        )
    if hits is None:
        hits = ctx.bundle.hits.get(f"{ctx.case_id}/{q.name}")
    per_rank: Counter[int] = Counter()
    lines: list[EvidenceLine] = []
    at_least = False  # some file stopped counting at the pattern's `enough`
    if hits is not None:
        at_least = any(path in allowed for path in hits.saturated)
        for path, counts in hits.counts.items():
            if path in allowed:
                for rank, n in counts.items():
                    per_rank[int(rank)] += n
        lines = [ln for ln in hits.lines if ln.file in allowed]
    for ln in quoted:
        per_rank[NO_RANK if ln.rank is None else ln.rank] += 1
        lines.append(ln)
    total = sum(per_rank.values())
    ranked = {r: n for r, n in per_rank.items() if r != NO_RANK and n >= q.min_count}
    truth = Truth.FALSE
    ranks: list[int] = sorted(ranked)
    if q.scope is Scope.ANY:
        ok = total >= q.min_count
    elif q.scope is Scope.RANK:
        ok = per_rank.get(q.rank if q.rank is not None else NO_RANK, 0) >= q.min_count
        ranks = [q.rank] if ok and q.rank is not None else []
    elif q.scope is Scope.ONE:
        ok = len(ranked) == 1
        if ok and len(ctx.facts.ranks) > 1:
            # the other ranks left logs and stayed silent: that is what "one rank" means
            ok = all(per_rank.get(r, 0) < q.min_count for r in ctx.facts.ranks if r not in ranked)
    elif q.scope is Scope.ALL_BUT_ONE:
        silent = set(ctx.facts.ranks) - set(ranked)
        ok = len(ctx.facts.ranks) >= 2 and len(silent) == 1 and bool(ranked)
        ranks = sorted(silent)  # the one rank that did not say it is the one to look at
    else:  # ALL
        known = set(ctx.facts.ranks)
        ok = len(known) >= 2 and known <= set(ranked)
    if ok and q.max_count is not None and total > q.max_count:
        ok = False
    if ok:
        truth = Truth.TRUE
        if q.scope in (Scope.ONE, Scope.RANK):
            lines = [ln for ln in lines if ln.rank in ranks] or lines
        blamed = _blamed_ranks(q, lines)
        if blamed:
            ranks = blamed
    detail = f"{'at least ' if at_least else ''}{total} matching line(s)"
    if per_rank:
        by_rank = ", ".join(
            f"rank {r}: {n}" if r != NO_RANK else f"no rank: {n}"
            for r, n in sorted(per_rank.items())
        )
        detail += f" ({by_rank})"
    return QueryResult(
        name=q.name,
        kind=q.kind,
        truth=truth,
        lines=lines[:MAX_LINES] if ok else lines[:3],
        detail=detail,
        ranks=ranks if ok else [],
    )


def _blamed_ranks(q: LogQuery, lines: list[EvidenceLine]) -> list[int]:
    """Ranks named by a `(?P<rank>...)` group: the line says who is to blame, e.g.
    "Rank 3 is running collective ..." or a heartbeat's "crimer rank"."""
    if "(?P<rank>" not in q.pattern.pattern:
        return []
    found: set[int] = set()
    for ln in lines:
        groups = extract(q.pattern.pattern, ln.text, ignore_case=q.pattern.ignore_case)
        value = (groups or {}).get("rank")
        if value is not None and value.isdigit():
            found.add(int(value))
    return sorted(found)
