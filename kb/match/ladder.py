"""The confidence ladder: how far a case's clauses may carry it, given what its facts prove.

A case's clauses give a level (every `require` holds: confirmed; its `likely` clauses:
likely; …). The ladder then asks what stood behind it, with the catalogue's word on each
message (language reference, "The confidence ladder"):

- a message several causes print (role `shared`, with other causes named), or the user's
  words, reach at most **possible** on their own;
- **likely** needs a fact that tells this case apart: a message only this case is known
  to print (decisive, or the only cause the catalogue names), evidence the case reads
  itself (a pattern it keeps, an environment, a package, a stack, the script), or a shared
  message whose other named causes are all known to be absent (their proof read and not
  there: false, not merely unknown);
- **confirmed** needs a fact that shows this case itself (a decisive message or its own
  evidence, not a status line of the setup, not only siblings found absent), an
  independent one from the logs or captures
  (other lines, not a copy of the same message: one message on several ranks is one fact;
  the reporter's words do not count here), and every other named cause of its shared
  messages known to be absent;
- a case is never held back by the cases it refines or that refine it (its family).

Each cap says why, so the report can show why a verdict stopped where it did.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, cast

from dsl.choices import LOG_KINDS, Level, Role
from kb.match.condition import positive_refs
from kb.match.results import LadderFact, QueryResult, Truth, Verdict

if TYPE_CHECKING:  # a warm run reads the snapshot's records (kb.cache.records), not models
    from dsl import model as m
    from dsl.catalogue.index import IndexedMessage
    from dsl.kinds.message import MessageQuery, MessageSignal
    from dsl.kinds.regression import RegressionQuery

DECISIVE = "decisive"  # a message only this case is known to print
OWN = "own"  # evidence the case reads itself (its pattern, env, package, stack…)
SHARED = "shared"  # a message other named causes print too
WORDS = "words"  # the user's words (a catalogue vocabulary entry)
CONTEXT = "context"  # describes the setup, proves nothing
UNKNOWN = "unknown"  # a cause the catalogue does not name
MAX_LINES = 50  # matched lines read back per message query to say which message each is
LEVELS = (Level.CONFIRMED, Level.LIKELY)


@lru_cache(maxsize=4096)
def _compiled(pattern: str) -> re.Pattern[str] | None:
    from dsl import regex_cache as regex  # re.compile's own object, its code kept per machine

    try:
        return regex.compile(pattern)
    except re.error:  # RE2 syntax Python lacks: the message is then not told apart
        return None


def _which(signals: list[MessageSignal], text: str) -> list[MessageSignal]:
    found = []
    for s in signals:
        compiled = _compiled(s.pattern) if s.pattern else None
        if compiled is not None and compiled.search(text):
            found.append(s)
    return found


def _message_fact(
    case_id: str, q: MessageQuery, r: QueryResult, family: frozenset[str]
) -> LadderFact:
    """A message query's fact: which of its messages the lines are, and who else prints them."""
    matched: dict[str, MessageSignal] = {}
    for line in r.lines[:MAX_LINES]:
        for s in _which(q.signals, line.text):
            matched[s.id] = s
    signals = list(matched.values()) or list(q.signals)  # unknown which: any of them
    ids = sorted(s.id for s in signals)
    if all(s.role == CONTEXT for s in signals):
        return LadderFact(query=q.name, strength=CONTEXT, messages=ids)
    # decisive for it, or the only cause the catalogue names besides its family ("unknown":
    # others may exist, none is known; the message is its signature, to be corroborated)
    for s in signals:
        named = {c for c in s.causes if c != UNKNOWN} - family
        if case_id in s.causes and named <= {case_id}:
            if s.role != DECISIVE and UNKNOWN in s.causes:
                continue  # the catalogue says others print it too, unnamed: shared
            return LadderFact(query=q.name, strength=DECISIVE, messages=ids)
    siblings = sorted(
        {c for s in signals for c in s.causes if c not in family and c not in (case_id, UNKNOWN)}
    )
    return LadderFact(query=q.name, strength=SHARED, messages=ids, siblings=siblings)


def facts_for(
    case: m.Case,
    results: dict[str, QueryResult],
    family: frozenset[str] = frozenset(),
    prose: frozenset[tuple[str, int]] = frozenset(),
) -> list[LadderFact]:
    """The facts that hold and speak for the case (in any clause but `rule_out`). `family`:
    the cases that refine it; the cases it refines are added here."""
    family = family | frozenset(case.specializes)
    names: dict[str, list[str]] = {}
    for clause in case.condition.clauses:
        if clause.role is Role.RULING_OUT:
            continue
        for name, negated in positive_refs(clause.expr):
            if not negated and clause.role.value not in names.setdefault(name, []):
                names[name].append(clause.role.value)
    out = []
    for name, roles in names.items():
        q, r = case.query(name), results.get(name)
        if q is None or r is None or r.truth is not Truth.TRUE:
            continue
        if q.kind == "message":  # kinds, not classes: records are read too
            q = cast("MessageQuery", q)
            fact = _message_fact(case.id, q, r, family)
            if fact.strength == CONTEXT and q.where:
                fact.strength = OWN  # the case's condition makes a status line a fact
                fact.status = True
        elif q.kind == "regression":
            strength = _regression_strength(cast("RegressionQuery", q), r, results, case)
            fact = LadderFact(query=name, strength=strength)
        elif q.kind == "said":
            fact = LadderFact(query=name, strength=WORDS)
        else:
            fact = LadderFact(query=name, strength=OWN)
            # the case's own pattern over the user's words: it tells the case apart, but it
            # is what the user said, not what a program printed
            fact.said = q.kind in LOG_KINDS and list(q.sources) == ["notes"]  # type: ignore[attr-defined]
        if r.lines and all(x.source == "notes" or (x.file, x.line) in prose for x in r.lines):
            fact.said = True
        if fact.strength == OWN and q.kind in LOG_KINDS and q.kind != "message" and not fact.said:
            _as_catalogued(fact, cast("m.LogQuery", q), r, case.id, family)
        fact.roles = roles
        out.append(fact)
    return out


def _as_catalogued(
    fact: LadderFact, q: m.LogQuery, r: QueryResult, case_id: str, family: frozenset[str]
) -> None:
    """A case's own pattern over lines the catalogue knows: the lines are those messages, and
    they tell the case apart only as far as the catalogue says (a pattern of its own for
    `terminate called after throwing` does not make that line this case's signature)."""
    from dsl.catalogue.index import message_index, messages_in  # only when a case needs it

    entries = message_index().messages
    found: dict[str, IndexedMessage] = {}
    for line in r.lines[:MAX_LINES]:
        hit = messages_in(line.text, entries)
        if not hit:
            return  # a line no message describes: the pattern is the case's own evidence
        for e in hit:
            found[e.id] = e
    if not found:
        return
    fact.messages = sorted(found)
    siblings: set[str] = set()
    for e in found.values():
        named = {c for c in e.causes if c != UNKNOWN} - family
        if e.role == DECISIVE and named <= {case_id}:
            return  # decisive for this case: own evidence indeed
        siblings |= named - {case_id}
    if all(e.role == CONTEXT for e in found.values()):
        # a status line narrowed by the case (`keeps` says the condition `where` cannot
        # express: a prefix, an entry of a list) is its own fact, as with `where`
        fact.strength = OWN if getattr(q, "keeps", None) else CONTEXT
        fact.status = fact.strength == OWN
        return
    fact.strength = SHARED
    fact.siblings = sorted(siblings)


def _regression_strength(
    q: RegressionQuery, r: QueryResult, results: dict[str, QueryResult], case: m.Case
) -> str:
    """A known-bad release explains a failure only through what it is known to print: its own
    evidence when one of the hit releases' signature messages is among the messages the case
    found here; else context (the release is broken in some way, maybe not this one)."""
    printed: set[str] = set()
    for name, res in results.items():
        other = case.query(name)
        if other is not None and other.kind == "message" and res.truth is Truth.TRUE:
            signals = cast("MessageQuery", other).signals
            for line in res.lines[:MAX_LINES]:
                printed.update(s.id for s in _which(signals, line.text))
    signatures = {sig for reg in q.regressions if reg.id in r.found for sig in reg.signature}
    return OWN if signatures & printed else CONTEXT


def _lines(v: Verdict) -> dict[str, frozenset[tuple[str, int]]]:
    return {q.name: frozenset((x.file, x.line) for x in q.lines) for q in v.queries}


def _independent(
    a: LadderFact, b: LadderFact, lines: dict[str, frozenset[tuple[str, int]]]
) -> bool:
    """Two facts stand apart: other lines, not copies of one message, and not two lines of
    one emitter's one failure (the catalogue's `after`)."""
    la, lb = lines.get(a.query, frozenset()), lines.get(b.query, frozenset())
    if la and lb and (la <= lb or lb <= la):
        return False
    if not (a.messages and b.messages):
        return True
    return not (set(a.messages) & set(b.messages) or _one_failure(a.messages, b.messages))


def _one_failure(a: list[str], b: list[str]) -> bool:
    """Some line of `a` and some line of `b` are printed in one failure of one emitter."""
    from dsl.catalogue.index import failure_of  # only when two facts are weighed

    failures = failure_of()
    return bool(
        {failures[x] for x in a if x in failures} & {failures[x] for x in b if x in failures}
    )


def _absent(v: Verdict | None) -> bool:
    """A case known not to be the cause: it reached no level, and either one of its
    `require` clauses is false (its proof was read and is not there) or one of its
    `rule_out` clauses holds (evidence against it was read)."""
    if v is None or v.clause_level != Level.NONE.value:
        return False
    return any(
        (c.role == Role.REQUIRED.value and c.truth is Truth.FALSE)
        or (c.role == Role.RULING_OUT.value and c.truth is Truth.TRUE)
        for c in v.clauses
    )


def _rivals(rivals: list[str], by_id: dict[str, Verdict]) -> str:
    """The rivals left standing (three named), and a command that would rule one out."""
    named = ", ".join(rivals[:3]) + (f" and {len(rivals) - 3} more" if len(rivals) > 3 else "")
    for case_id in rivals:
        other = by_id.get(case_id)
        for miss in other.missing if other else []:
            if miss.confirms and miss.commands:
                first = miss.commands[0].strip().splitlines()[0]
                return f"{named}; `{first}` would tell {case_id} apart"
    return named


def _names(facts: list[LadderFact]) -> str:
    return ", ".join(f"`{f.query}`" for f in facts) or "none"


def _signature(v: Verdict, raw: Level) -> list[LadderFact]:
    """The facts in the clauses that gave the level (`require` for confirmed, `likely` for
    likely): their other causes are the rivals; a support's are not."""
    role = (Role.REQUIRED if raw is Level.CONFIRMED else Role.LIKELY).value
    return [f for f in v.facts if role in f.roles]


def judge(verdicts: list[Verdict]) -> None:
    """Set each verdict's level from its clause level and its facts, weighed against the
    other cases' verdicts (which rivals fit too, which are known to be absent)."""
    by_id = {v.id: v for v in verdicts}

    for v in verdicts:
        raw = Level(v.clause_level)
        if raw not in LEVELS:
            continue
        mine = {msg for f in v.facts for msg in f.messages}

        def fits(case_id: str, mine: set[str] = mine) -> bool:
            """A rival fits when its clauses reach a level on something beyond the very
            messages this case reads: one that fits through them alone is no rival."""
            other = by_id.get(case_id)
            if other is None or Level(other.clause_level) not in LEVELS:
                return False
            return any(
                f.strength in (DECISIVE, OWN) or (f.strength == SHARED and set(f.messages) - mine)
                for f in other.facts
            )

        signature = _signature(v, raw)
        # a fact that tells this case apart, read in what a program printed: a decisive
        # message or the case's own evidence (not the user's words, not a sibling's absence:
        # an excerpt that lacks a sibling's message does not show the sibling is not there)
        positive = [f for f in v.facts if f.strength in (DECISIVE, OWN) and not f.said]
        fitting = sorted({c for f in signature for c in f.siblings if fits(c)})
        if not positive:
            told = [f for f in v.facts if f.strength in (DECISIVE, OWN)]
            _cap(
                v,
                Level.POSSIBLE,
                "possible, not likely: "
                + (
                    f"{_names(told)} is what the user says, not what a program printed"
                    if told
                    else f"{_names(v.facts)} can come from several causes"
                )
                + (f"; {', '.join(fitting)} fit too" if fitting else ""),
                fitting,
            )
            continue
        if raw is not Level.CONFIRMED:
            continue
        lines = _lines(v)
        # the independent fact is machine output too: the user's words never corroborate
        machine = [f for f in v.facts if f.strength in (DECISIVE, OWN, SHARED) and not f.said]
        # every other cause of its signature's shared messages must be known absent
        open_rivals = sorted(
            {
                c
                for f in signature
                if f.strength == SHARED
                for c in f.siblings
                if c in by_id and not _absent(by_id[c])
            }
        )
        # what shows the failure itself: a decisive message or the case's own evidence, not
        # a status line of the setup (NCCL chose sockets, the port is RoCE): every job on
        # that setup prints it, failing or not
        showing = [f for f in positive if not f.status]
        if not showing:
            _cap(
                v,
                Level.LIKELY,
                f"likely, not confirmed: {_names(positive)} describes the setup; nothing "
                "printed shows the failure itself",
                [],
            )
        elif not any(_independent(d, o, lines) for d in showing for o in machine if o is not d):
            chained = [
                o
                for o in machine
                if o not in showing
                and any(_one_failure(d.messages, o.messages) for d in showing if d.messages)
            ]
            _cap(
                v,
                Level.LIKELY,
                f"likely, not confirmed: only {_names(showing)} shows it; nothing "
                "independent beside it"
                + (
                    f" ({_names(chained)} is the same failure, printed on its way)"
                    if chained
                    else ""
                ),
                [],
            )
        elif open_rivals:
            _cap(
                v,
                Level.LIKELY,
                "likely, not confirmed: nothing rules out " + _rivals(open_rivals, by_id),
                open_rivals,
            )


def _cap(v: Verdict, level: Level, reason: str, standing: list[str]) -> None:
    v.level = level.value
    v.matched = level in LEVELS
    v.confidence = "medium" if v.matched else "low"
    v.stopped = reason
    v.rivals = standing
