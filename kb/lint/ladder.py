"""Cases the confidence ladder would always hold back (kb.match.ladder, and the language
reference's "The confidence ladder").

The matcher caps a verdict whose facts do not tell its case apart; these rules say so when
the case is written, not when a user meets the cap:

- `lint/ladder-never-confirmed` (warning, for now: three bundled cases prove themselves with a
  message whose other causes differ only in a field value, which the catalogue cannot say
  yet — `where ["signal=Killed"]` rules out the segfault and bus-error causes): no query in the `require` clauses can ever be a fact of
  the case itself (a decisive message, or evidence the case reads itself): every one is a
  message other named causes print, a context message, or the user's words. Such a case can
  never be confirmed, whatever its clauses say.
- `lint/ladder-proof-without-own-fact` (warning): the `require` clauses can all hold on shared
  messages and the user's words alone; the ladder then stops the verdict at likely or
  possible. Fine for a case whose proof is that pair, but it should be a choice.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from dsl import model as m
from dsl.diagnostics import Diagnostic, Severity
from dsl.kinds.message import MessageQuery
from kb.lint.base import Rule
from kb.match.condition import evaluate_expr, positive_refs
from kb.match.results import Truth

UNKNOWN = "unknown"
MARK = re.compile(r"#\s*ladder:\s*(\S.*)")


def accepted_cap(case: m.Case, clause: m.Clause) -> str | None:
    """The reason in a `# ladder: <why>` comment right above the clause: the author knows
    the ladder caps this case and says why (like `# untested:`), so it is not warned about."""
    if not case.folder:
        return None
    try:
        lines = (Path(case.folder) / "case.kb").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    i = clause.span.line - 2
    while 0 <= i < len(lines) and lines[i].lstrip().startswith("#"):
        found = MARK.match(lines[i].strip())
        if found:
            return found.group(1)
        i -= 1
    return None


def family(case: m.Case, cases: list[m.Case]) -> set[str]:
    """The cases it refines and the cases that refine it: never its rivals."""
    return set(case.specializes) | {c.id for c in cases if case.id in c.specializes}


def can_tell_apart(q: m.Query, case: m.Case, kin: set[str]) -> bool:
    """Whether the query can hold as a fact of this case itself (decisive or its own)."""
    if q.kind == "said":
        return False
    if not isinstance(q, MessageQuery):
        return True
    for s in q.signals:
        named = {c for c in s.causes if c != UNKNOWN} - kin
        if case.id in s.causes and named <= {case.id}:
            return True
        if s.role == "context" and q.where:
            return True
    return False


@dataclass(frozen=True)
class Proof:
    """A case's `require` clauses, the queries they need, and its family."""

    clauses: list[m.Clause]
    queries: list[m.Query]
    kin: set[str]

    def tells_apart(self, case: m.Case) -> bool:
        return any(can_tell_apart(q, case, self.kin) for q in self.queries)


def unaccepted_proof(case: m.Case, cases: list[m.Case]) -> Proof | None:
    """The case's proof, or None when it has none or its author accepted the ladder's cap."""
    clauses = [c for c in case.condition.clauses if c.role is m.Role.REQUIRED]
    if not clauses or accepted_cap(case, clauses[0]):
        return None
    names = {n for c in clauses for n, negated in positive_refs(c.expr) if not negated}
    queries = [q for q in (case.query(n) for n in sorted(names)) if q is not None]
    return Proof(clauses, queries, family(case, cases))


class NeverConfirmed(Rule):
    code: ClassVar[str] = "lint/ladder-never-confirmed"
    severity: ClassVar[Severity] = Severity.WARNING
    description: ClassVar[str] = (
        "No query of the require clauses can be a fact of the case itself: never confirmed."
    )

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        proof = unaccepted_proof(case, cases)
        if proof is not None and proof.queries and not proof.tells_apart(case):
            yield self.report(
                proof.clauses[0].span,
                f"`{case.id}` can never be confirmed: its require clauses read only messages "
                "other named causes print, context messages or the user's words",
                help="require a fact of the case itself as well: a decisive message, or "
                "evidence it reads itself (a script, an environment, a package, a stack); or "
                "accept it with a `# ladder: <why>` comment above the first require clause",
            )


class ProofWithoutOwnFact(Rule):
    code: ClassVar[str] = "lint/ladder-proof-without-own-fact"
    severity: ClassVar[Severity] = Severity.WARNING
    description: ClassVar[str] = (
        "The require clauses hold on shared messages and words alone: the ladder stops it."
    )

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        proof = unaccepted_proof(case, cases)
        if proof is None or not proof.tells_apart(case):
            return  # no proof, an accepted cap, or lint/ladder-never-confirmed says it
        clauses, kin = proof.clauses, proof.kin
        # the weakest evidence that could be handed over: every query that cannot tell the
        # case apart holds, every one that can does not
        truths = {
            q.name: Truth.FALSE if can_tell_apart(q, case, kin) else Truth.TRUE
            for q in case.queries
        }
        if all(evaluate_expr(c.expr, truths) is Truth.TRUE for c in clauses):
            yield self.report(
                clauses[0].span,
                f"`{case.id}`'s require clauses can all hold on shared messages and the "
                "user's words alone; such a verdict stops at likely or possible",
                help="add a clause with a fact of the case itself, or accept the cap with a "
                "`# ladder: <why>` comment above the first require clause",
            )
