"""What to collect next: one list, grouped by command, each saying which candidates it separates.

Every candidate case asks for the evidence it lacks; many ask for the same thing (the ranks'
logs, NCCL_DEBUG=INFO, a package list). The report shows each command once, with the cases
whose verdict its output would change, the strongest candidates' needs first.
"""

from __future__ import annotations

from collections.abc import Sequence

from kb.match.results import Missing, Verdict

MAX_STEPS = 8


def _key(miss: Missing) -> tuple[str, ...]:
    if miss.commands:
        return tuple(c.strip() for c in miss.commands)
    return ("note", miss.note) if miss.note else ("describe", miss.description)


def plan(candidates: list[Verdict], generic: Sequence[Missing] = ()) -> list[Missing]:
    """Deduplicated requests for evidence, in the order of the candidates that need them."""
    merged: dict[tuple[str, ...], Missing] = {}
    for verdict in candidates:
        for miss in verdict.missing:
            if miss.only_against and verdict.level == "none":
                continue  # what could only rule out a case that is not a candidate
            key = _key(miss)
            step = merged.get(key)
            if step is None:
                step = merged[key] = Missing(
                    query=miss.query,
                    description=miss.description,
                    commands=list(miss.commands),
                    note=None,
                    cases=[],
                )
            elif miss.description not in step.description and len(step.description) < 300:
                step.description += f"; {miss.description}"
            if verdict.id not in step.cases:
                step.cases.append(verdict.id)
    steps = list(merged.values())[:MAX_STEPS]  # the candidates' own needs, then the generic
    known = {c for s in steps for c in s.commands}
    return steps + [extra for extra in generic if not any(c in known for c in extra.commands)]
