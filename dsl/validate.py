"""Semantic checks over lowered cases: the mistakes a parser cannot see.

Each check is a function that yields diagnostics; `validate_cases` runs them all so a
run reports every problem at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

from dsl import model as m
from dsl import runtime
from dsl.diagnostics import Diagnostic, Severity, did_you_mean
from dsl.kinds import KINDS
from dsl.kinds.package import requirement_problem
from dsl.span import Span

KEBAB = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")  # fullmatch: `$` would let a trailing newline in


def _regexes(case: m.Case) -> Iterator[tuple[str, m.Regex, bool]]:
    """(query name, regex, scanned): scanned when the regex goes into the multi-pattern scan of
    log files, i.e. a log query's pattern that can count outside the user's notes."""
    for q in case.queries:
        for field_name in ("pattern", "model", "regex", "frame", "op", "call"):
            value = getattr(q, field_name, None)
            if isinstance(value, m.Regex):
                sources = set(getattr(q, "sources", None) or ())
                in_notes_only = bool(sources) and sources <= {"notes"}
                scanned = q.kind == "log" and field_name == "pattern" and not in_notes_only
                yield q.name, value, scanned


def regex_problem(regex: m.Regex, scanned: bool = True) -> str | None:
    """Why a case regex cannot run on the scanning engine in linear time, if it cannot."""
    unknown = set(regex.flags) - set("imsx")
    if unknown:
        return f"unknown regex flag(s) {''.join(sorted(unknown))}; allowed: i, m, s, x"
    return runtime.regex_problem(regex.pattern, regex.ignore_case, scanned)


def check_regexes(case: m.Case) -> Iterator[Diagnostic]:
    for name, regex, scanned in _regexes(case):
        problem = regex_problem(regex, scanned)
        if problem:
            linear = "backtracking" in problem
            yield Diagnostic.at(
                regex.span,
                f"regex in `{name}`: {problem}",
                code="bad-regex",
                help="case patterns must run in linear time: no backreferences or lookaround"
                if linear
                else None,
            )


def check_versions(case: m.Case) -> Iterator[Diagnostic]:
    for field_name in ("affected", "fixed"):
        for index, text in enumerate(getattr(case, field_name)):
            reason = requirement_problem(text)
            if reason is not None:
                yield Diagnostic.at(
                    case.item_span(field_name, index),
                    f"`{field_name}`: invalid requirement {text[:80]!r}: {reason}",
                    code="bad-version",
                )


def _refs(expr: m.Expr) -> Iterator[m.Ref]:
    if isinstance(expr, m.Ref):
        yield expr
    elif isinstance(expr, m.Not):
        yield from _refs(expr.operand)
    else:
        for operand in expr.operands:
            yield from _refs(operand)


def check_names(case: m.Case) -> Iterator[Diagnostic]:
    defined = {q.name for q in case.queries} | set(case.broken_queries)
    used: set[str] = set()
    for clause in case.condition.clauses:
        for ref in _refs(clause.expr):
            used.add(ref.name)
            if ref.name not in defined:
                yield Diagnostic.at(
                    ref.span,
                    f"`{ref.name}` is not a defined evidence query",
                    code="undefined-evidence",
                    help=did_you_mean(ref.name, defined),
                )
    for symptom in case.symptoms:
        for name in symptom.evidence:
            used.add(name)
            if name not in defined:
                yield Diagnostic.at(
                    symptom.span,
                    f"symptom shows `{name}`, which is not a defined evidence query",
                    code="undefined-evidence",
                    help=did_you_mean(name, defined),
                )
    for fixture in case.fixtures:
        for name, _where in fixture.lines:
            if name not in defined:
                yield Diagnostic.at(
                    fixture.span,
                    f"fixture line names `{name}`, which is not a defined evidence query",
                    code="undefined-evidence",
                    help=did_you_mean(name, defined),
                )
    for q in case.queries:
        if q.name not in used and not case.broken_queries:
            yield Diagnostic.at(
                q.span,
                f"evidence `{q.name}` is never used in `match` or a symptom",
                code="unused-evidence",
            )


def check_queries(case: m.Case) -> Iterator[Diagnostic]:
    """What makes a query impossible, as each kind's module says (dsl/kinds/)."""
    for q in case.queries:
        yield from KINDS[q.kind].check(q)


LEVEL_ROLES = (
    (m.Role.REQUIRED, "confirmed", "`require`"),
    (m.Role.LIKELY, "likely", "`likely`"),
    (m.Role.POSSIBLE, "possible", "`possible`"),
)


def check_satisfiable(case: m.Case) -> Iterator[Diagnostic]:
    """Every level a case declares must be reachable: some evidence makes all of its
    clauses hold while no `rule_out` does (queries taken as free true/false values)."""
    clauses = case.condition.clauses
    for clause in clauses:
        for node in _walk(clause.expr):
            if isinstance(node, m.AtLeast) and node.count > len(node.operands):
                yield Diagnostic.at(
                    node.span,
                    f"at_least {node.count} of {len(node.operands)} queries can never hold",
                    code="unsatisfiable",
                )
    if not any(c.role is m.Role.REQUIRED for c in clauses):
        yield Diagnostic.at(
            case.condition.span,
            "the condition has no `require` clause: the case would match any evidence",
            code="unsatisfiable",
        )
        return
    vetoes = [c.expr for c in clauses if c.role is m.Role.RULING_OUT]
    for role, level, words in LEVEL_ROLES:
        holds = [c.expr for c in clauses if c.role is role]
        if holds and reachable(holds, vetoes) is False:
            yield Diagnostic.at(
                next(c.span for c in clauses if c.role is role),
                f"the level `{level}` can never be reached: no evidence makes every {words} "
                "clause hold while no `rule_out` holds",
                code="unsatisfiable",
            )


MAX_SAT_STEPS = 200_000


def reachable(holds: list[m.Expr], vetoes: list[m.Expr]) -> bool | None:
    """Whether some true/false value of each query makes every `holds` true and every
    `vetoes` false; None when the search was too large to finish (then nothing is said).
    Backtracking over partial assignments, pruned as soon as a clause is decided."""
    names = sorted({r.name for e in holds + vetoes for r in _refs(e)})
    steps = 0

    def search(i: int, env: dict[str, bool]) -> bool | None:
        nonlocal steps
        steps += 1
        if steps > MAX_SAT_STEPS:
            return None
        want = [_partial(e, env) for e in holds]
        avoid = [_partial(e, env) for e in vetoes]
        if False in want or True in avoid:
            return False
        if all(w is True for w in want) and all(a is False for a in avoid):
            return True
        if i == len(names):
            return False
        unknown = False
        for value in (True, False):
            found = search(i + 1, {**env, names[i]: value})
            if found:
                return True
            unknown = unknown or found is None
        return None if unknown else False

    return search(0, {})


def _partial(expr: m.Expr, env: dict[str, bool]) -> bool | None:
    """Kleene evaluation over a partial assignment: None while undecided."""
    if isinstance(expr, m.Ref):
        return env.get(expr.name)
    if isinstance(expr, m.Not):
        inner = _partial(expr.operand, env)
        return None if inner is None else not inner
    values = [_partial(o, env) for o in expr.operands]
    if isinstance(expr, m.And):
        return False if False in values else (None if None in values else True)
    if isinstance(expr, m.Or):
        return True if True in values else (None if None in values else False)
    true, open_ = values.count(True), values.count(None)
    if true >= expr.count:
        return True
    return False if true + open_ < expr.count else None


def _walk(expr: m.Expr) -> Iterator[m.Expr]:
    yield expr
    if isinstance(expr, m.Not):
        yield from _walk(expr.operand)
    elif not isinstance(expr, m.Ref):
        for operand in expr.operands:
            yield from _walk(operand)


def check_identity(case: m.Case) -> Iterator[Diagnostic]:
    if not KEBAB.fullmatch(case.id):
        yield Diagnostic.at(
            case.span,
            f"case id `{case.id}` is not kebab-case (lower-case words joined by `-`)",
            code="bad-id",
        )
    if case.folder and Path(case.folder).name != case.id:
        yield Diagnostic.at(
            case.span,
            f"case id `{case.id}` differs from its folder name `{Path(case.folder).name}`",
            code="id-not-folder",
        )


def check_fixture_folders(case: m.Case) -> Iterator[Diagnostic]:
    if not case.folder:
        return
    root = Path(case.folder) / "fixtures"
    seen: set[str] = set()
    for fixture in case.fixtures:
        if fixture.path.strip("/") in seen:
            yield Diagnostic.at(
                fixture.span,
                f"fixture `{fixture.path}` is declared twice; merge the two blocks",
                code="duplicate-fixture",
            )
        seen.add(fixture.path.strip("/"))
        if not (root / fixture.path).is_dir():
            yield Diagnostic.at(
                fixture.span,
                f"fixture folder `fixtures/{fixture.path}` does not exist",
                code="missing-fixture",
            )


CASE_CHECKS: tuple[Callable[[m.Case], Iterator[Diagnostic]], ...] = (
    check_identity,
    check_names,
    check_regexes,
    check_versions,
    check_queries,
    check_satisfiable,
    check_fixture_folders,
)


def _located(diagnostic: Diagnostic, case: m.Case) -> Diagnostic:
    """A problem of a part the author never wrote (a missing `match`) is shown at the case."""
    if diagnostic.line or not case.span.line:
        return diagnostic
    return diagnostic.model_copy(
        update={
            "path": diagnostic.path or case.span.path,
            "line": case.span.line,
            "column": case.span.column,
        }
    )


def check_case(case: m.Case) -> list[Diagnostic]:
    """Every per-case check; a check that fails on a stranger's case becomes an error at the
    case, so one broken case in a pack is reported and left out, never a crash of the rest."""
    out: list[Diagnostic] = []
    for check in CASE_CHECKS:
        try:
            out.extend(_located(d, case) for d in check(case))
        except Exception as exc:
            out.append(
                Diagnostic.at(
                    case.span,
                    f"internal error in {check.__name__}: "
                    f"{type(exc).__name__}: {str(exc)[:200]} (please report "
                    "it with this case)",
                    code="internal",
                )
            )
    return out


def validate_cases(
    cases: list[m.Case], known_ids: set[str] | None = None, *, per_case: bool = True
) -> list[Diagnostic]:
    """Every semantic problem of every case, per-case checks first, then cross-case ones.

    `known_ids` are ids of cases not loaded in this run (the bundled ones, a pack) that
    `specializes`/`related` may still name, so checking one case alone stays quiet.
    `per_case=False` runs the cross-case checks only (for cases already checked one by one)."""
    out: list[Diagnostic] = []
    for case in cases if per_case else ():
        out.extend(check_case(case))
    seen: dict[str, Span] = {}
    for case in cases:
        if case.id in seen:
            first = seen[case.id]
            out.append(
                Diagnostic.at(
                    case.span,
                    f"duplicate case id `{case.id}` (also in {first.path}:{first.line})",
                    code="duplicate-id",
                )
            )
        else:
            seen[case.id] = case.span
    for case in cases:
        named = [("specializes", i, c) for i, c in enumerate(case.specializes)]
        named += [("related", i, c) for i, c in enumerate(case.related)]
        for field_name, index, other in named:
            if other not in seen and other not in (known_ids or set()):
                out.append(
                    Diagnostic.at(
                        case.item_span(field_name, index),
                        f"`{case.id}` refers to unknown case `{other}`",
                        code="unknown-case",
                        severity=Severity.ERROR,
                    )
                )
    return out
