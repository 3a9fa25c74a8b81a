"""A draft is not knowledge yet: cases that still read TODO, or that a failing job of any
kind would match, fail `kb check` and are left out of every diagnosis.

`kb new --from-evidence` proposes queries from the error lines it finds, and the most
frequent line of a failed Python job is its traceback header. A case whose `require` (or
`likely`, or `possible`) clauses can hold on such lines alone would be named first, at that
level, on every failed job anyone diagnoses. Both checks here are cheap (no fixture is read),
so the loader of `kb diagnose` runs them on every case, not just `kb check`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from dsl import model as m
from dsl.catalogue import registry
from dsl.compiler import (
    COMPILER_VERSION,
    CompiledCase,
    KnowledgeBase,
    cache_dir,
    write_cache_file,
)
from dsl.diagnostics import Diagnostic, Severity
from kb.lint.base import Rule

_PROBLEMS = TypeAdapter(list[Diagnostic])

# Lines any failed job prints, whatever its cause: a pattern that matches one of them says
# nothing about which failure it is. Kept short and literal so a test can walk it.
GENERIC_LINES: tuple[str, ...] = (
    "Traceback (most recent call last):",
    "error",
    "Error",
    "ERROR",
    "Exception",
    "RuntimeError:",
    "failed",
    "Failed",
    "FAILED",
    "exit code 1",
    "exit code: 1",
    "exitcode: 1",
    "exit status 1",
    "returned non-zero exit status 1.",
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
    "Root Cause (first observed failure):",
)

LEVEL_ROLES = (m.Role.REQUIRED, m.Role.LIKELY, m.Role.POSSIBLE)


def generic_line(query: m.Query) -> str | None:
    """The generic line a log query holds on, or None when it asks for something specific."""
    if not isinstance(query, m.LogQuery) or query.max_count == 0:
        return None
    return generic_line_of(query.pattern.pattern, query.pattern.ignore_case)


def generic_line_of(pattern: str, ignore_case: bool = False) -> str | None:
    """The first of GENERIC_LINES that `pattern` finds, or None (also for a pattern RE2
    refuses: `kb check` reports that pattern itself)."""
    from kb.scan.regexes import line_regex, validate_regex

    if validate_regex(pattern, ignore_case, scanned=False) is not None:
        return None
    program = line_regex(pattern, ignore_case)
    return next((line for line in GENERIC_LINES if program.search(line.encode())), None)


def _holds(expr: m.Expr, generic: set[str]) -> bool:
    """Whether `expr` holds when exactly the generic queries hold (all others are false)."""
    if isinstance(expr, m.Ref):
        return expr.name in generic
    if isinstance(expr, m.Not):
        return not _holds(expr.operand, generic)
    if isinstance(expr, m.And):
        return all(_holds(o, generic) for o in expr.operands)
    if isinstance(expr, m.AtLeast):
        return sum(_holds(o, generic) for o in expr.operands) >= expr.count
    return any(_holds(o, generic) for o in expr.operands)


class GenericEvidence(Rule):
    code = "lint/generic-evidence"
    severity = Severity.ERROR
    description = "The case reaches a verdict on lines every failed job prints (a draft)."
    help = (
        "require the line that tells this failure apart (its message, error code or the "
        "frame it hangs in); keep generic lines as `support` at most"
    )

    def check(self, case: m.Case, cases: list[m.Case]) -> Iterator[Diagnostic]:
        lines = {q.name: line for q in case.queries if (line := generic_line(q)) is not None}
        if not lines:
            return
        generic = set(lines)
        for role in LEVEL_ROLES:
            clauses = [c for c in case.condition.clauses if c.role is role]
            if not clauses or not all(_holds(c.expr, generic) for c in clauses):
                continue
            for q in case.queries:
                if q.name in lines and isinstance(q, m.LogQuery):
                    yield self.report(
                        q.pattern.span if q.pattern.span.line else q.span,
                        f"`{role.value}` holds on generic lines alone: evidence `{q.name}` "
                        f"matches {lines[q.name]!r}, which any failed job prints, so "
                        f"`{case.id}` would be named for unrelated failures",
                    )
            return


def draft_problems(case: m.Case) -> list[Diagnostic]:
    """Why this case is still a draft (TODO prose or generic evidence); empty when it is not."""
    from kb.lint.metadata import PlaceholderText

    out: list[Diagnostic] = []
    for rule in (GenericEvidence(), PlaceholderText()):
        out.extend(rule.check(case, [case]))
    return out


def cached_draft_problems(compiled: CompiledCase) -> list[Diagnostic]:
    """`draft_problems`, kept beside the compiled case: the check validates every pattern
    (about a second for 40 cases), and its answer changes only with the case file, the
    catalogue or the compiler."""
    key = hashlib.sha256(
        "\0".join(
            (COMPILER_VERSION, compiled.source_hash, compiled.source_path, registry.fingerprint())
        ).encode()
    ).hexdigest()[:32]
    path = cache_dir() / f"draft-{key}.json"
    try:
        return _PROBLEMS.validate_json(path.read_bytes())
    except (OSError, ValidationError, ValueError):
        pass
    problems = draft_problems(compiled.case)
    write_cache_file(path, _PROBLEMS.dump_json(problems))
    return problems


def leave_out_drafts(kb: KnowledgeBase) -> KnowledgeBase:
    """Move draft cases out of `kb` (in place); one error per draft says why, in short."""
    kept = []
    for compiled in kb.cases:
        problems = cached_draft_problems(compiled)
        if not problems:
            kept.append(compiled)
            continue
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        kb.diagnostics.append(
            Diagnostic(
                path=first.path,
                line=first.line,
                column=first.column,
                message=f"case `{compiled.case.id}` is an unfinished draft, left out of the "
                f"diagnosis: {first.message}{more}",
                code="draft",
                help=f"finish it until `kb check {Path(first.path).parent}` reports no error",
            )
        )
    kb.cases = kept
    return kb
