"""The evaluator of each query kind, registered under the kind's name (dsl/kinds/ holds
the language side). Each returns TRUE with the lines that prove it, FALSE when the evidence
was handed over and says no, or UNKNOWN when the evidence it needs is absent (so the report
can ask for it instead of guessing)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from kb.match.context import Context
from kb.match.kinds import (
    collectives,
    env,
    hardware,
    log,
    package,
    regression,
    said,
    source,
    stack,
    topology,
)
from kb.match.results import QueryResult

if TYPE_CHECKING:  # a warm `kb diagnose` reads records, not the language's models
    from dsl.kinds import QueryKind

Evaluator = Callable[[Any, Context], QueryResult]

EVALUATORS: dict[str, Evaluator] = {
    "log": log.evaluate,
    "message": log.evaluate,  # a catalogued message is a log query with the catalogue's pattern
    "said": said.evaluate,  # the user's words: a log query over their notes, denials left out
    "package": package.evaluate,
    "regression": regression.evaluate,
    "env": env.evaluate,
    "hardware": hardware.evaluate,
    "topology": topology.evaluate,
    "collectives": collectives.evaluate,
    "stack": stack.evaluate,
    "source": source.evaluate,
}


@contextmanager
def registered(kind: QueryKind, evaluator: Evaluator) -> Iterator[QueryKind]:
    """A whole kind, language and evaluator, added for the duration of a block (a test's toy)."""
    from dsl.kinds import registered as registered_language

    with registered_language(kind):
        EVALUATORS[kind.name] = evaluator
        try:
            yield kind
        finally:
            del EVALUATORS[kind.name]
