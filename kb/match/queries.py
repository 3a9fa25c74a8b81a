"""Evaluating one evidence query against the facts: one function per query kind.

Each returns TRUE with the lines that prove it, FALSE when the evidence was handed over
and says no, or UNKNOWN when the evidence it needs is absent (so the report can ask for
it instead of guessing).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from dsl import model as m
from kb.evidence.facts import EvidenceLine, Facts
from kb.evidence.selection import WORDS_ONLY, glob_ok
from kb.match.regex import search
from kb.match.results import QueryResult, Truth
from kb.scan.engine import extract

MAX_LINES = 20
NO_RANK = -1


class Context:
    """The evidence as the queries see it: facts plus the per-pattern scan hits."""

    def __init__(self, bundle: Any, case_id: str) -> None:
        self.bundle = bundle
        self.facts: Facts = bundle.facts
        self.case_id = case_id
        self.kind_of = {f.path: f.kind for f in self.facts.files}
        self.rank_of = {f.path: f.rank for f in self.facts.files}


# A user's own words and their scripts are not tool output: "no linkdown in syslog" must not
# count as a link-down line, nor `print("Preparing models")` as a run that got there. Such
# files are searched only by queries that ask for their kind by name (WORDS_ONLY).


def _file_ok(ctx: Context, path: str, q: m.LogQuery) -> bool:
    kind = ctx.kind_of.get(path)
    if q.sources and kind not in q.sources:
        return False
    if not q.sources and kind in WORDS_ONLY:
        return False
    return glob_ok(path, q.files)


def _quoted_hits(q: m.LogQuery, ctx: Context) -> list[EvidenceLine]:
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
        quoted = ln.text.split("`")[1::2]
        if any(search(q.pattern.pattern, part, q.pattern.ignore_case) for part in quoted):
            out.append(ln)
    return out


def eval_log(q: m.LogQuery, ctx: Context) -> QueryResult:
    eligible = [f.path for f in ctx.facts.files if _file_ok(ctx, f.path, q)]
    quoted = _quoted_hits(q, ctx)
    if not eligible and not quoted:
        what = ("files of kind " + " or ".join(q.sources)) if q.sources else "log files"
        if q.sources == ["notes"]:
            what = "notes in the user's words"
        if q.files:
            what += " named " + " or ".join(q.files)
        return QueryResult(name=q.name, kind=q.kind, truth=Truth.UNKNOWN,
                           detail=f"no {what} were handed over")
    hits = ctx.bundle.hits.get(f"{ctx.case_id}/{q.name}")
    per_rank: Counter[int] = Counter()
    lines: list[EvidenceLine] = []
    at_least = False  # some file stopped counting at the pattern's `enough`
    if hits is not None:
        allowed = set(eligible)
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
    if q.scope is m.Scope.ANY:
        ok = total >= q.min_count
    elif q.scope is m.Scope.RANK:
        ok = per_rank.get(q.rank if q.rank is not None else NO_RANK, 0) >= q.min_count
        ranks = [q.rank] if ok and q.rank is not None else []
    elif q.scope is m.Scope.ONE:
        ok = len(ranked) == 1
        if ok and len(ctx.facts.ranks) > 1:
            # the other ranks left logs and stayed silent: that is what "one rank" means
            ok = all(per_rank.get(r, 0) < q.min_count for r in ctx.facts.ranks if r not in ranked)
    elif q.scope is m.Scope.ALL_BUT_ONE:
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
        if q.scope in (m.Scope.ONE, m.Scope.RANK):
            lines = [ln for ln in lines if ln.rank in ranks] or lines
        blamed = _blamed_ranks(q, lines)
        if blamed:
            ranks = blamed
    detail = f"{'at least ' if at_least else ''}{total} matching line(s)"
    if per_rank:
        by_rank = ", ".join(
            f"rank {r}: {n}" if r != NO_RANK else f"no rank: {n}" for r, n in sorted(per_rank.items())
        )
        detail += f" ({by_rank})"
    return QueryResult(name=q.name, kind=q.kind, truth=truth, lines=lines[:MAX_LINES] if ok else
                       lines[:3], detail=detail, ranks=ranks if ok else [])


def _blamed_ranks(q: m.LogQuery, lines: list[EvidenceLine]) -> list[int]:
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


def _version_ok(version: str, spec: str) -> bool | None:
    try:
        return Version(version) in SpecifierSet(spec, prereleases=True)
    except (InvalidVersion, InvalidSpecifier):
        return None


def eval_package(q: m.PackageQuery, ctx: Context) -> QueryResult:
    # a tool's package list beats versions the user named in words
    captures = [c for c in ctx.facts.package_captures if c.tool != "notes"] or \
        ctx.facts.package_captures
    if not captures:
        return QueryResult(name=q.name, kind=q.kind, truth=Truth.UNKNOWN,
                           detail="no package list (pip freeze, pip list, conda list, "
                           "collect_env, accelerate env) was handed over")
    lines, seen = [], []
    for cap in captures:
        version = cap.packages.get(q.package)
        if version is None:
            continue
        seen.append(f"{version} ({cap.file})")
        ok = _version_ok(version, q.specifier) if q.specifier else True
        if ok:
            lines.append(EvidenceLine(file=cap.file, line=cap.lines.get(q.package, 0),
                                      text=f"{q.package}=={version}", source=cap.tool))
    if lines:
        return QueryResult(name=q.name, kind=q.kind, truth=Truth.TRUE, lines=lines,
                           detail=f"{q.package} {', '.join(seen)} matches {q.specifier or 'any'}")
    if not seen and all(c.tool == "notes" for c in captures):
        return QueryResult(name=q.name, kind=q.kind, truth=Truth.UNKNOWN,
                           detail=f"the user's words name no {q.package} version, and no "
                           "package list was handed over")
    if not seen:
        return QueryResult(name=q.name, kind=q.kind, truth=Truth.FALSE,
                           detail=f"{q.package} is not in the package lists")
    return QueryResult(name=q.name, kind=q.kind, truth=Truth.FALSE,
                       detail=f"{q.package} {', '.join(seen)} does not match {q.specifier}")


def eval_env(q: m.EnvQuery, ctx: Context) -> QueryResult:
    captures = ctx.facts.env_captures
    if not captures:
        return QueryResult(name=q.name, kind=q.kind, truth=Truth.UNKNOWN,
                           detail="no environment capture (env, printenv, NCCL 'set by "
                           "environment' lines) was handed over")
    found = [(c, c.variables[q.variable]) for c in captures if q.variable in c.variables]
    lines = [EvidenceLine(file=c.file, line=c.lines.get(q.variable, 0),
                          text=f"{q.variable}={v}", source="env") for c, v in found]
    if q.test == "unset":
        truth = Truth.FALSE if found else Truth.TRUE
        detail = f"{q.variable} is set" if found else f"{q.variable} is not set in " \
                 f"{len(captures)} capture(s)"
        return QueryResult(name=q.name, kind=q.kind, truth=truth,
                           lines=lines if found else [], detail=detail)
    if q.test == "set":
        ok = [ln for ln in lines]
    elif q.test == "equals":
        ok = [ln for (_c, v), ln in zip(found, lines, strict=True) if v == q.value]
    else:
        regex = q.regex
        ok = [ln for (_c, v), ln in zip(found, lines, strict=True)
              if regex is not None and search(regex.pattern, v, regex.ignore_case)]
    truth = Truth.TRUE if ok else Truth.FALSE
    detail = ", ".join(ln.text for ln in lines) or f"{q.variable} is not set"
    return QueryResult(name=q.name, kind=q.kind, truth=truth, lines=ok, detail=detail)


def _devices(facts: Facts) -> list[Any]:
    """Devices a tool listed; only when none did, the ones the user named."""
    listed = [d for d in facts.devices if not d.reported]
    said = [d for d in facts.devices if d.reported]
    # `accelerate env` names the GPU type once; "8x RTX 3090" in the user's words says how many
    if listed and len(said) > len(listed) and {d.model for d in listed} <= {d.model for d in said}:
        return said
    return listed or said


def eval_hardware(q: m.HardwareQuery, ctx: Context) -> QueryResult:
    known = _devices(ctx.facts)
    devices = [d for d in known if q.device in ("any", d.kind)]
    if not known:
        return QueryResult(name=q.name, kind=q.kind, truth=Truth.UNKNOWN,
                           detail="no device listing (nvidia-smi, npu-smi, collect_env)")
    if q.model is not None:
        model = q.model
        devices = [d for d in devices if search(model.pattern, d.model, model.ignore_case)]
    n = len(devices)
    ok = n > 0
    if q.min_devices is not None:
        ok = ok and n >= q.min_devices
    if q.max_devices is not None:
        ok = ok and n <= q.max_devices
    said = " (as the user reported)" if devices and devices[0].reported else ""
    lines = [EvidenceLine(file=d.file, line=d.line,
                          text=f"{d.kind.upper()} {d.index}: {d.model}{said}",
                          source="notes" if d.reported else "devices") for d in devices[:8]]
    models = sorted({d.model for d in known})
    return QueryResult(name=q.name, kind=q.kind, truth=Truth.TRUE if ok else Truth.FALSE,
                       lines=lines if ok else [],
                       detail=f"{n} matching device(s); models seen: {', '.join(models)}")


def _link_matches(link: str, wanted: list[str]) -> bool:
    for w in wanted:
        if w == link or (w in ("NV#", "NV") and link.startswith("NV") and link[2:].isdigit()):
            return True
    return False


def eval_topology(q: m.TopologyQuery, ctx: Context) -> QueryResult:
    topo = ctx.facts.topology
    if topo is None or not topo.links:
        return QueryResult(name=q.name, kind=q.kind, truth=Truth.UNKNOWN,
                           detail="no `nvidia-smi topo -m` output was handed over")
    gpu_pairs = {k: v for k, v in topo.links.items()
                 if all(p.startswith("GPU") for p in k.split(",")) and v != "X"}
    hits = {k: v for k, v in gpu_pairs.items() if _link_matches(v, q.links)}
    ok = bool(hits) if q.pairs == "any" else bool(gpu_pairs) and len(hits) == len(gpu_pairs)
    lines = []
    for pair in sorted(hits)[:6]:
        row = pair.split(",")[0]
        lines.append(EvidenceLine(file=topo.file, line=topo.lines.get(row, 0),
                                  text=f"{pair.replace(',', ' <-> ')}: {hits[pair]}",
                                  source="nvidia-topo"))
    kinds = Counter(gpu_pairs.values())
    return QueryResult(name=q.name, kind=q.kind, truth=Truth.TRUE if ok else Truth.FALSE,
                       lines=lines if ok else [],
                       detail="GPU links: " + ", ".join(f"{k}×{n}" for k, n in sorted(kinds.items())))


def eval_collectives(q: m.CollectivesQuery, ctx: Context) -> QueryResult:
    facts = ctx.facts
    if q.check == "mismatch-reported":
        if facts.mismatches:
            return QueryResult(
                name=q.name, kind=q.kind, truth=Truth.TRUE,
                lines=[mm.evidence for mm in facts.mismatches][:MAX_LINES],
                ranks=sorted({r for mm in facts.mismatches for r in (mm.rank_a, mm.rank_b)
                              if r is not None}),
                detail=f"{len(facts.mismatches)} mismatch report(s)")
        truth = Truth.FALSE if any(f.kind in ("pytorch", "torchrun", "text-log")
                                   for f in facts.files) else Truth.UNKNOWN
        return QueryResult(name=q.name, kind=q.kind, truth=truth,
                           detail="no 'Detected mismatch between collectives' report")
    if q.check == "seq-differs":
        # where each rank's queue stood: "last enqueued work" when PyTorch printed it (>= 2.2),
        # else the sequence number of the collective it timed out in
        seqs: dict[int, int] = {}
        lines = []
        for t in facts.watchdog_timeouts:
            if t.rank is not None and t.seq is not None:
                seqs[t.rank] = t.seq
                lines.append(t.evidence)
        for pos in facts.queue_positions:
            if pos.rank is not None:
                seqs[pos.rank] = pos.last_enqueued
                lines.append(pos.evidence)
        if len(seqs) < q.min_ranks:
            return QueryResult(name=q.name, kind=q.kind, truth=Truth.UNKNOWN,
                               detail=f"watchdog sequence numbers from {len(seqs)} rank(s)")
        ok = len(set(seqs.values())) > 1
        return QueryResult(name=q.name, kind=q.kind, truth=Truth.TRUE if ok else Truth.FALSE,
                           lines=lines if ok else [],
                           detail="queue position per rank: " + ", ".join(
                               f"rank {r}: {s}" for r, s in sorted(seqs.items())))
    per_rank: dict[int, list[Any]] = {}
    for op in facts.collectives:
        if q.op is None or search(q.op.pattern, op.op, q.op.ignore_case):
            per_rank.setdefault(op.rank, []).append(op)
    if len(per_rank) < q.min_ranks and q.check == "last-op-differs":
        # without entry logs, the op each rank timed out in is the last one it issued
        per_rank = {}
        for t in facts.watchdog_timeouts:
            if t.rank is not None and (q.op is None or search(q.op.pattern, t.op,
                                                              q.op.ignore_case)):
                per_rank.setdefault(t.rank, [t])  # the first report; later ones repeat it
    if len(per_rank) < q.min_ranks:
        return QueryResult(name=q.name, kind=q.kind, truth=Truth.UNKNOWN,
                           detail=f"collective sequences from {len(per_rank)} rank(s); need "
                           f"{q.min_ranks} (HCCL_ENTRY_LOG_ENABLE=1 or "
                           "TORCH_DISTRIBUTED_DEBUG=DETAIL)")
    counts = {r: len(ops) for r, ops in per_rank.items()}
    last = {r: ops[-1] for r, ops in per_rank.items()}
    summary = "; ".join(f"rank {r}: {counts[r]} ops, last {last[r].op}" for r in sorted(per_rank))
    if q.check == "last-op-differs":
        ok = len({op.op for op in last.values()}) > 1
        ranking = Counter(op.op for op in last.values()).most_common()
        odd: list[int] = []
        if ok and ranking[0][1] > ranking[1][1]:  # a clear majority singles out the others
            odd = [r for r, op in last.items() if op.op != ranking[0][0]]
        lines = [ev for r in sorted(last) if (ev := last[r].evidence) is not None]
        return QueryResult(name=q.name, kind=q.kind, truth=Truth.TRUE if ok else Truth.FALSE,
                           lines=lines if ok else [], detail=summary, ranks=sorted(odd))
    if q.check == "count-differs":
        ok = len(set(counts.values())) > 1
    else:  # count-equal
        ok = len(set(counts.values())) == 1
    lines = [ev for r in sorted(last) if (ev := last[r].evidence) is not None]
    return QueryResult(name=q.name, kind=q.kind, truth=Truth.TRUE if ok else Truth.FALSE,
                       lines=lines if ok else [], detail=summary)


def eval_stack(q: m.StackQuery, ctx: Context) -> QueryResult:
    stacks = ctx.facts.stacks
    if not stacks:
        return QueryResult(name=q.name, kind=q.kind, truth=Truth.UNKNOWN,
                           detail="no stack dump (py-spy dump, faulthandler) was handed over")
    hit_ranks: dict[int, EvidenceLine] = {}
    lines = []
    for thread in stacks:
        for frame in thread.frames:
            text = f"{frame.function} ({frame.file}:{frame.line})"
            if search(q.frame.pattern, text, q.frame.ignore_case):
                lines.append(dataclasses.replace(thread.evidence, text=f"{thread.evidence.text} → {text}"))
                hit_ranks[thread.rank if thread.rank is not None else NO_RANK] = lines[-1]
                break
    ranked = sorted(r for r in hit_ranks if r != NO_RANK)
    stack_ranks = {t.rank for t in stacks if t.rank is not None}
    if q.scope is m.Scope.ANY:
        ok = bool(hit_ranks)
    elif q.scope is m.Scope.RANK:
        ok = q.rank in hit_ranks
        ranked = [q.rank] if ok and q.rank is not None else []
    elif q.scope is m.Scope.ALL_BUT_ONE:
        silent = stack_ranks - set(ranked)
        ok = len(stack_ranks) >= 2 and len(silent) == 1 and bool(ranked)
        ranked = sorted(silent)
    elif q.scope is m.Scope.ONE:
        if len(stack_ranks) < 2:
            return QueryResult(name=q.name, kind=q.kind, truth=Truth.UNKNOWN,
                               detail="stacks of at least two ranks are needed to tell one "
                               f"rank apart ({len(stack_ranks)} given)")
        ok = len(ranked) == 1
    else:
        ok = len(stack_ranks) >= 2 and stack_ranks <= set(ranked)
    return QueryResult(name=q.name, kind=q.kind, truth=Truth.TRUE if ok else Truth.FALSE,
                       lines=lines[:MAX_LINES] if ok else [], ranks=ranked if ok else [],
                       detail=f"frame found on {len(hit_ranks)} of {len(stacks)} stack(s)")


def eval_source(q: m.SourceQuery, ctx: Context) -> QueryResult:
    if not ctx.facts.source_findings and not any(f.kind == "python-source"
                                                 for f in ctx.facts.files):
        return QueryResult(name=q.name, kind=q.kind, truth=Truth.UNKNOWN,
                           detail="no training script was handed over")
    found = [f for f in ctx.facts.source_findings
             if (q.finding == "call" or f.finding == q.finding)
             and (q.call is None or search(q.call.pattern, f.call, q.call.ignore_case))]
    # a collective only the main process reaches singles out rank 0; in the else branch,
    # every other rank is waiting, so no single rank is to blame
    ranks = sorted({0 for f in found if f.finding == "collective-in-main-only-branch"
                    and f.guard.endswith("[main process only]")})
    return QueryResult(name=q.name, kind=q.kind, truth=Truth.TRUE if found else Truth.FALSE,
                       lines=[f.evidence for f in found][:MAX_LINES], ranks=ranks,
                       detail=f"{len(found)} finding(s)" + (
                           ": " + ", ".join(f"{f.call} under {f.guard}" for f in found[:3])
                           if found else ""))


EVALUATORS: dict[str, Callable[[Any, Context], QueryResult]] = {
    "log": eval_log,
    "package": eval_package,
    "env": eval_env,
    "hardware": eval_hardware,
    "topology": eval_topology,
    "collectives": eval_collectives,
    "stack": eval_stack,
    "source": eval_source,
}


def evaluate(q: m.Query, ctx: Context) -> QueryResult:
    return EVALUATORS[q.kind](q, ctx)


__all__ = ["EVALUATORS", "Context", "evaluate"]
