"""The evidence as a query's evaluator sees it: the facts plus the per-pattern scan hits."""

from __future__ import annotations

from typing import Any

from kb.evidence.facts import Facts

MAX_LINES = 20  # evidence lines a true query keeps
NO_RANK = -1  # the counting key of lines that name no rank


class Context:
    """The evidence as the queries see it: facts plus the per-pattern scan hits."""

    def __init__(self, bundle: Any, case_id: str) -> None:
        self.bundle = bundle
        self.facts: Facts = bundle.facts
        self.case_id = case_id
        self.kind_of = {f.path: f.kind for f in self.facts.files}
        self.rank_of = {f.path: f.rank for f in self.facts.files}
        # what several of the case's queries ask of the same evidence, worked out once (the
        # files a `log` query may read: most of a case's queries share a scope)
        self.memo: dict[Any, Any] = {}
