"""The registry of evidence query kinds: one module each, one line each below.

The schema, the lowering, validation, `kb compile --show`, the report and the site all loop
over `KINDS`; the runtime registers an evaluator under each name (`kb.match.kinds`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from dsl.kinds import (
    collectives,
    env,
    hardware,
    log,
    message,
    package,
    regression,
    said,
    source,
    stack,
    topology,
)
from dsl.kinds.base import Query, QueryKind

KINDS: dict[str, QueryKind] = {
    kind.name: kind
    for kind in (
        log.KIND,
        message.KIND,
        said.KIND,
        regression.KIND,
        package.KIND,
        env.KIND,
        hardware.KIND,
        topology.KIND,
        collectives.KIND,
        stack.KIND,
        source.KIND,
    )
}


def kind_of(q: Query) -> QueryKind:
    return KINDS[q.kind]


@contextmanager
def registered(kind: QueryKind) -> Iterator[QueryKind]:
    """A kind added for the duration of a block (a test's toy kind), then removed."""
    if kind.name in KINDS:
        raise ValueError(f"query kind `{kind.name}` is already registered")
    KINDS[kind.name] = kind
    try:
        yield kind
    finally:
        del KINDS[kind.name]
