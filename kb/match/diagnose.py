"""Running every compiled checker over one evidence bundle and ranking the verdicts.

A case is *confirmed* only when every `require` clause is TRUE and no `rule_out` clause
is; it is *likely* or *possible* when its own `likely` or `possible` clauses hold instead
(the signature without the proof, as real reports give it), and never when a `rule_out`
holds. Unknown evidence never counts for a level: it becomes a request for that evidence.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dsl.choices import LOG_KINDS, Level, Role, Scope
from dsl.explain import describe_expr, describe_query
from kb.evidence.facts import EvidenceLine
from kb.evidence.selection import quoted_parts
from kb.match import ladder
from kb.match.condition import evaluate_expr, positive_refs
from kb.match.next_steps import plan
from kb.match.queries import Context, evaluate
from kb.match.results import (
    ClauseResult,
    Distinction,
    Missing,
    QueryResult,
    Result,
    Truth,
    Verdict,
)
from kb.match.unexplained import KnownMessage, known_messages

if TYPE_CHECKING:  # a warm run reads the snapshot's records (kb.cache.records), not models
    from dsl import model as m
    from dsl.compiler import CompiledCase, KnowledgeBase

SCHEMA = "kb.diagnosis/v1"
CLOSE_SCORES = 0.15
DEFAULT_SITE = "http://127.0.0.1:8000"

GENERIC_NEXT_STEPS: list[Missing] = [
    Missing(
        query="nccl-debug",
        description="NCCL's own account of setup and failures",
        commands=[
            "export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,NET",
            "export NCCL_DEBUG_FILE=nccl.%h.%p.log  # one file per process",
        ],
    ),
    Missing(
        query="torch-debug",
        description="which collective each rank was running",
        commands=[
            "export TORCH_DISTRIBUTED_DEBUG=DETAIL",
            "export TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1",
        ],
    ),
    Missing(
        query="stacks",
        description="where every rank is stuck, while it hangs",
        commands=[
            "pip install py-spy && for p in $(pgrep -f train.py); do "
            "py-spy dump --pid $p > stack.$p.txt; done"
        ],
    ),
    Missing(
        query="environment",
        description="versions, devices and links",
        commands=[
            "pip freeze > pip-freeze.txt",
            "accelerate env > accelerate-env.txt",
            "python -m torch.utils.collect_env > collect-env.txt",
            "nvidia-smi > nvidia-smi.txt && nvidia-smi topo -m > topo.txt",
            "env | grep -E '^(NCCL|TORCH|CUDA|HCCL|ASCEND)_' > env.txt",
        ],
    ),
]


@dataclass(kw_only=True)
class Diagnosis(Result):
    schema_id: str = field(default=SCHEMA, metadata={"alias": "schema"})
    evidence_root: str = ""
    evidence: dict[str, Any] = field(default_factory=dict)
    matches: list[Verdict] = field(default_factory=list)  # confirmed or likely, best first
    possible: list[Verdict] = field(default_factory=list)  # weaker signs only, best first
    near_misses: list[Verdict] = field(default_factory=list)
    distinctions: list[Distinction] = field(default_factory=list)
    suspicious: dict[str, list[EvidenceLine]] = field(default_factory=dict)  # rank -> lines
    last_progress: dict[str, EvidenceLine] = field(default_factory=dict)
    next_steps: list[Missing] = field(default_factory=list)
    # when no case reaches a level: the catalogued messages found, what they mean, who prints
    known_messages: list[KnownMessage] = field(default_factory=list)

    @property
    def ranked(self) -> list[Verdict]:
        """Every candidate, best first: the matches, then the merely possible."""
        return self.matches + self.possible


def site_page(case_id: str) -> str:
    base = os.environ.get("KB_SITE_URL", DEFAULT_SITE).rstrip("/")
    return f"{base}/cases/{case_id}/"


def _missing_for(q: m.Query, result: QueryResult) -> Missing:
    return Missing(
        query=q.name,
        description=(q.description.en if q.description else describe_query(q)),
        commands=[c.code for c in q.collect],
        note=(q.collect_note.en if q.collect_note else result.detail),
    )


def _singles_out(q: m.Query, facts: Any) -> int:
    """How strongly a query's ranks name a culprit: 3 for queries built to single out a
    rank; 1 for cross-rank comparisons, main-only code and log lines of one rank; stacks
    only when several ranks' stacks were handed over (one rank's stack says where it
    waits, not that it is to blame)."""
    log = q.kind in LOG_KINDS  # a LogQuery (kinds, not classes: records are read too)
    if (log or q.kind == "stack") and q.scope in (  # type: ignore[attr-defined]
        Scope.ONE,
        Scope.RANK,
        Scope.ALL_BUT_ONE,
    ):
        return 3
    if log and "(?P<rank>" in q.pattern.pattern:  # type: ignore[attr-defined]
        return 3
    if q.kind in ("collectives", "source"):
        return 1
    if log:
        return 1  # an error line raised on one rank makes that rank the first suspect
    if q.kind == "stack":  # a stack shows where a rank waits, not that it failed
        return 1 if len({t.rank for t in facts.stacks if t.rank is not None}) >= 2 else 0
    return 0


def _culprit(verdict_queries: dict[str, QueryResult], case: m.Case, facts: Any) -> int | None:
    """The rank the evidence singles out, or None when nothing does (or two ranks tie)."""
    votes: Counter[int] = Counter()
    for q in case.queries:
        r = verdict_queries.get(q.name)
        weight = _singles_out(q, facts)
        if r is None or r.truth is not Truth.TRUE or len(r.ranks) != 1 or not weight:
            continue
        votes[r.ranks[0]] += weight
    if not votes:
        return None
    (best, n), *rest = votes.most_common()
    if rest and rest[0][1] == n:
        return None  # a tie singles out nobody
    return best


SCORED_ROLES = (Role.REQUIRED.value, Role.SUPPORTING.value)


def verdict_level(clauses: list[ClauseResult]) -> Level:
    """The strongest level whose clauses all hold, unless a `rule_out` holds."""
    if any(c.truth is Truth.TRUE for c in clauses if c.role == Role.RULING_OUT.value):
        return Level.NONE
    for role, level in (
        (Role.REQUIRED, Level.CONFIRMED),
        (Role.LIKELY, Level.LIKELY),
        (Role.POSSIBLE, Level.POSSIBLE),
    ):
        own = [c for c in clauses if c.role == role.value]
        if own and all(c.truth is Truth.TRUE for c in own):
            return level
    return Level.NONE


def run_case(compiled: CompiledCase, bundle: Any, family: frozenset[str] = frozenset()) -> Verdict:
    """One case's verdict; `family`: the cases that refine it (kb.match.ladder)."""
    case = compiled.case
    ctx = Context(bundle, case.id)
    results = {q.name: evaluate(q, ctx) for q in case.queries}
    truths = {name: r.truth for name, r in results.items()}
    clauses: list[ClauseResult] = []
    evidence: list[tuple[str, EvidenceLine]] = []
    against: list[tuple[str, EvidenceLine]] = []
    reasons: list[str] = []
    missing: dict[str, Missing] = {}
    speaking_for = {
        name
        for c in case.condition.clauses
        if c.role is not Role.RULING_OUT
        for name, _ in positive_refs(c.expr)
    }
    proving = {
        name
        for c in case.condition.clauses
        if c.role is Role.REQUIRED
        for name, _ in positive_refs(c.expr)
    }
    for clause in case.condition.clauses:
        truth = evaluate_expr(clause.expr, truths, clause.role is Role.POSSIBLE)
        clauses.append(
            ClauseResult(
                role=clause.role.value,
                text=describe_expr(clause.expr),
                truth=truth,
                weight=clause.weight,
            )
        )
        for name, negated in positive_refs(clause.expr):
            r = results.get(name)
            if r is None:
                continue
            if r.truth is Truth.UNKNOWN:
                q = case.query(name)
                if q is not None:
                    miss = missing.setdefault(name, _missing_for(q, r))
                    miss.only_against = name not in speaking_for
                    miss.confirms = name in proving
                continue
            speaks_for = (r.truth is Truth.TRUE) != negated
            if clause.role is Role.RULING_OUT:
                if truth is Truth.TRUE and speaks_for:
                    against.extend((name, ln) for ln in r.lines)
                    reasons.append(f"{name}: {r.detail}")
            elif speaks_for and r.truth is Truth.TRUE:
                evidence.extend((name, ln) for ln in r.lines)
            elif not speaks_for and clause.role is Role.REQUIRED and truth is Truth.FALSE:
                reasons.append(f"{name}: {r.detail}")
                against.extend((name, ln) for ln in r.lines)
    scored = [c for c in clauses if c.role in SCORED_ROLES]
    total = sum(c.weight for c in scored) or 1.0
    score = sum(c.weight for c in scored if c.truth is Truth.TRUE) / total
    level = verdict_level(clauses)  # before the ladder (diagnose_bundle) weighs the facts
    matched = level in (Level.CONFIRMED, Level.LIKELY)
    unknown = sum(c.weight for c in scored if c.truth is Truth.UNKNOWN) / total
    confidence = _confidence(level, score, unknown)
    seen: set[tuple[str, str, int]] = set()
    unique = []
    for name, ln in evidence:
        key = (name, ln.file, ln.line)
        if key not in seen:
            seen.add(key)
            unique.append((name, ln))
    return Verdict(
        id=case.id,
        title=case.title.en,
        matched=matched,
        score=round(score, 3),
        confidence=confidence,
        level=level.value,
        culprit_rank=_culprit(results, case, bundle.facts) if matched else None,
        clauses=clauses,
        queries=list(results.values()),
        evidence=unique,
        against=against,
        against_reasons=reasons,
        missing=list(missing.values()),
        specializes=list(case.specializes),
        page=site_page(case.id),
        clause_level=level.value,
        facts=ladder.facts_for(case, results, family, prose_lines(bundle.facts)),
    )


def prose_lines(facts: Any) -> frozenset[tuple[str, int]]:
    """(file, line) of the user's own sentences: notes lines outside a pasted block. A message
    quoted there is what the user says was printed, not the output itself."""
    fenced = {(f, n) for f, first, last in facts.fenced for n in range(first, last + 1)}
    return frozenset((x.file, x.line) for x in facts.notes if (x.file, x.line) not in fenced)


def quoted_in_prose(facts: Any, prose: frozenset[tuple[str, int]]) -> list[EvidenceLine]:
    """The output a user quotes inside a sentence (`RuntimeError: …` in backticks or quotes),
    each part as a line of its own. Log queries already read these parts; the never-silent
    path reads them too, so a catalogued message the user quotes names its causes at
    "possible" (what the user says was printed is no proof, but it is no silence either)."""
    out: list[EvidenceLine] = []
    for ln in facts.notes:
        if (ln.file, ln.line) not in prose:
            continue
        for part in quoted_parts(ln.text):
            if len(part) >= 12:  # a word in backticks (`torchrun`) is a name, not output
                out.append(dataclasses.replace(ln, text=part))
    return out


def _confidence(level: Level, score: float, unknown: float) -> str:
    """The level says how sure; within "confirmed", evidence that is thin or partly missing
    (a single proving line, most supports unknown) is medium rather than high."""
    if level is Level.CONFIRMED:
        return "high" if score >= 0.5 or unknown == 0 else "medium"
    if level is Level.LIKELY:
        return "medium"
    return "low"


def _refines(special: Verdict, general: Verdict) -> bool:
    """A case that specialises another goes before it, at the same level or across levels,
    when a fact of its own that tells it apart holds (a decisive message or its own evidence
    a program printed, beyond what the general case reads too); without one, the general case
    is the safer answer and the usual order stands."""
    if Level(special.level) is Level.NONE:
        return False
    theirs = {f.query for f in general.facts}
    return any(
        f.strength in (ladder.DECISIVE, ladder.OWN) and not f.said and f.query not in theirs
        for f in special.facts
    )


def _rank_order(verdicts: list[Verdict]) -> list[Verdict]:
    """Best first; a case that specializes another comes before it (see `_refines`)."""
    ordered = sorted(
        verdicts,
        key=lambda v: (
            Level(v.level).rank,
            Level(v.clause_level).rank,  # of two capped alike, the one more of whose proof holds
            -v.score,
            -len(v.evidence),
            v.id,
        ),
    )
    changed = True
    while changed:
        changed = False
        position = {v.id: i for i, v in enumerate(ordered)}
        for v in ordered:
            for general in v.specializes:
                if (
                    general in position
                    and position[general] < position[v.id]
                    and _refines(v, ordered[position[general]])
                ):
                    ordered.remove(v)
                    ordered.insert(position[general], v)
                    changed = True
                    break
            if changed:
                break
    return ordered


def _distinctions(matches: list[Verdict], kb: KnowledgeBase) -> list[Distinction]:
    out = []
    for first, second in itertools.pairwise(matches):
        special = second.id in first.specializes
        if not special and abs(first.score - second.score) > CLOSE_SCORES:
            continue
        hints = first.missing + [
            h for h in second.missing if h.query not in {x.query for x in first.missing}
        ]
        if special:
            extra = [
                name for name, _ in first.evidence if name not in {n for n, _ in second.evidence}
            ]
            explanation = (
                f"{first.id} refines {second.id}; it ranks first because its own "
                f"evidence holds: {', '.join(dict.fromkeys(extra)) or 'see above'}"
            )
        else:
            explanation = (
                f"{first.id} and {second.id} score within {CLOSE_SCORES:.2f}; "
                "the evidence below would separate them"
            )
        out.append(
            Distinction(first=first.id, second=second.id, hints=hints, explanation=explanation)
        )
    return out


INTERESTING_PACKAGES = (
    "torch",
    "torch-npu",
    "accelerate",
    "deepspeed",
    "transformers",
    "nvidia-nccl-cu12",
    "nvidia-nccl-cu11",
)


def evidence_summary(facts: Any) -> dict[str, Any]:
    """What was read, for the JSON report: files by kind and rank, skips, key facts."""
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f in facts.files:
        by_kind[f.kind].append({"path": f.path, "rank": f.rank, "lines": f.lines})
    packages: dict[str, list[str]] = {}
    for cap in facts.package_captures:
        for name in INTERESTING_PACKAGES:
            if name in cap.packages:
                packages.setdefault(name, []).append(cap.packages[name])
    return {
        "files": dict(by_kind),
        "skipped": [dataclasses.asdict(s) for s in facts.skipped],
        "ranks": facts.ranks,
        "world_size": facts.world_size,
        "packages": {k: sorted(set(v)) for k, v in packages.items()},
        "devices": sorted({d.model for d in facts.devices}),
        "device_count": len(facts.devices),
        "conflicts": facts.conflicts,
    }


def _rank_key(rank: int | None) -> str:
    return "unknown" if rank is None else str(rank)


def diagnose_bundle(kb: KnowledgeBase, bundle: Any, only: str | None = None) -> Diagnosis:
    refined_by: dict[str, set[str]] = defaultdict(set)
    for c in kb.cases:
        for general in c.case.specializes:
            refined_by[general].add(c.case.id)
    verdicts = [run_case(c, bundle, frozenset(refined_by[c.case.id])) for c in kb.cases]
    ladder.judge(verdicts)  # levels weighed against every case, whatever `only` shows
    if only is not None:
        verdicts = [v for v in verdicts if v.id == only]
    matches = _rank_order([v for v in verdicts if v.matched])
    possible = _rank_order([v for v in verdicts if v.level == Level.POSSIBLE.value])
    # a near miss has at least one required clause that holds: a case whose requirements
    # all failed is not "partly matching", whatever its supports say
    near = sorted(
        (
            v
            for v in verdicts
            if v.level == Level.NONE.value
            and any(c.role == "require" and c.truth is Truth.TRUE for c in v.clauses)
        ),
        key=lambda v: -v.score,
    )[:3]
    facts = bundle.facts
    diagnosis = Diagnosis(
        evidence_root=str(bundle.root),
        evidence=evidence_summary(facts),
        matches=matches,
        possible=possible,
        near_misses=near,
        distinctions=_distinctions(matches, kb),
    )
    if not matches and not possible:
        quoted = [  # output the user pasted into their notes, not their prose
            ln
            for ln in facts.notes
            if any(f == ln.file and a <= ln.line <= b for f, a, b in facts.pasted)
        ]
        # lines a case's query found are read too: a catalogued message need not look like an
        # error line (`Unable to determine the device handle for GPU…: Unknown Error`)
        prose = prose_lines(facts)
        found = [ln for v in verdicts for _, ln in v.evidence if (ln.file, ln.line) not in prose]
        said = quoted_in_prose(facts, prose)
        diagnosis.known_messages = known_messages(
            [*facts.suspicious, *quoted, *found, *said], verdicts
        )
        possible = _named_by_the_catalogue(verdicts, diagnosis.known_messages)
        diagnosis.possible = possible
    if not matches:
        by_rank: dict[str, list[EvidenceLine]] = defaultdict(list)
        for ln in facts.suspicious:
            if len(by_rank[_rank_key(ln.rank)]) < 5:
                by_rank[_rank_key(ln.rank)].append(ln)
        diagnosis.suspicious = dict(by_rank)
        diagnosis.last_progress = {str(r): ln for r, ln in sorted(facts.last_progress.items())}
        diagnosis.next_steps = plan(possible + near, GENERIC_NEXT_STEPS)
    return diagnosis


# A message the catalogue says more causes than this can print (torchrun's "Sending process N
# closing signal SIGTERM", mpirun's abort banner) follows almost any failure: naming its causes
# would only crowd the answer. The report still lists it, with what tells the causes apart.
MAX_CAUSES_NAMED = 6


def _named_by_the_catalogue(verdicts: list[Verdict], known: list[KnownMessage]) -> list[Verdict]:
    """Never silent: when no case reached a level but the folder holds catalogued messages,
    the cases the catalogue names among each message's causes are possible, from the message
    alone (its proof may simply be missing from the excerpt). A case that ruled itself out
    stays out; a message only it prints goes first, then the case named by more messages."""
    by_id = {v.id: v for v in verdicts if v.level == Level.NONE.value}
    named: dict[str, list[KnownMessage]] = defaultdict(list)
    for k in known:
        if len([c for c in k.causes if c != ladder.UNKNOWN]) > MAX_CAUSES_NAMED:
            continue  # printed after almost any failure: it points at none of them
        for case_id in k.causes:
            v = by_id.get(case_id)
            if v is None or any(c.role == "rule_out" and c.truth is Truth.TRUE for c in v.clauses):
                continue
            named[case_id].append(k)
    out = []
    for case_id, messages in named.items():
        v = by_id[case_id]
        ids = ", ".join(f"`{k.id}`" for k in messages)
        v.level, v.matched, v.confidence = Level.POSSIBLE.value, False, "low"
        v.evidence = [
            (f"{k.id}: a message the catalogue says this cause can print", k.line) for k in messages
        ] + v.evidence
        v.rivals = sorted(
            {c for k in messages for c in k.causes if c not in (case_id, ladder.UNKNOWN)}
        )
        v.stopped = (
            f"possible, from the catalogue alone: it lists this case among the causes of {ids}; "
            "none of the case's own signs was read"
        )
        out.append(v)

    def only_cause(v: Verdict) -> bool:
        return any(k.causes == [v.id] for k in named[v.id])

    return sorted(out, key=lambda v: (not only_cause(v), -len(named[v.id]), -v.score, v.id))


def read_bundle(kb: KnowledgeBase, evidence: str, workers: int | None = None) -> Any:
    from kb.evidence.reader import LogPattern, read_evidence

    patterns = [
        LogPattern(p.key, p.regex, p.ignore_case, tuple(p.sources), tuple(p.files), p.enough)
        for p in kb.scan_patterns()
    ]
    return read_evidence(evidence, patterns, workers=workers)
