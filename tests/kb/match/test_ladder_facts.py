"""How the ladder reads a fact's strength from the catalogue (kb.match.ladder.facts_for), on
the bundled cases and hand-made query results: the catalogue, not the case's pattern, says
what a line proves."""

from __future__ import annotations

import pytest

from dsl.compiler import load_knowledge_base
from dsl.model import Case
from kb.evidence.facts import EvidenceLine
from kb.match.ladder import facts_for
from kb.match.results import LadderFact, QueryResult, Truth


@pytest.fixture(scope="module")
def cases() -> dict[str, Case]:
    kb = load_knowledge_base()
    return {c.case.id: c.case for c in kb.cases}


def _true(
    name: str, kind: str, *texts: str, source: str = "case", file: str = "a.log"
) -> QueryResult:
    lines = [
        EvidenceLine(file=file, line=i + 1, text=t, source=source) for i, t in enumerate(texts)
    ]
    return QueryResult(name=name, kind=kind, truth=Truth.TRUE, lines=lines)


def _fact(
    case: Case,
    results: dict[str, QueryResult],
    name: str,
    prose: frozenset[tuple[str, int]] = frozenset(),
) -> LadderFact:
    return next(f for f in facts_for(case, results, prose=prose) if f.query == name)


def test_a_known_bad_release_is_context_unless_its_signature_was_printed(
    cases: dict[str, Case],
) -> None:
    case = cases["nccl-known-bad-release"]
    other = _true("bad_release", "regression", "nccl==2.26.2")
    other.found = ["nccl.2-26-2.graph-capture-overhead"]  # broken, but in another way
    assert _fact(case, {"bad_release": other}, "bad_release").strength == "context"
    hit = _true("bad_release", "regression", "NCCL version 2.25.1+cuda12.8")
    hit.found = ["nccl.2-25-1.blackwell-shared-memory"]
    printed = _true(
        "maxsharedmem_exceeded",
        "message",
        "node:1:2 [0] enqueue.cc:123 NCCL WARN ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856",
    )
    results = {"bad_release": hit, "maxsharedmem_exceeded": printed}
    assert _fact(case, results, "bad_release").strength == "own"


def test_a_version_the_user_names_is_their_words(cases: dict[str, Case]) -> None:
    case = cases["nccl-known-bad-release"]
    said = _true("bad_release", "regression", "nccl==2.25.1", source="notes", file="notes.md")
    said.found = ["nccl.2-25-1.blackwell-shared-memory"]
    assert _fact(case, {"bad_release": said}, "bad_release").said


def test_a_message_quoted_in_the_users_prose_is_their_words(cases: dict[str, Case]) -> None:
    case = cases["master-port-in-use"]
    quoted = _true(
        "bind_in_use_legacy",
        "message",
        'It fails with "RuntimeError: Address already in use"',
        file="notes.md",
    )
    fact = _fact(
        case, {"bind_in_use_legacy": quoted}, "bind_in_use_legacy", frozenset({("notes.md", 1)})
    )
    assert fact.said
    logged = _true("bind_in_use_legacy", "message", "RuntimeError: Address already in use")
    assert not _fact(case, {"bind_in_use_legacy": logged}, "bind_in_use_legacy").said


def test_a_message_the_catalogue_says_unnamed_others_print_is_shared(
    cases: dict[str, Case],
) -> None:
    """`role shared, causes [this case, unknown]`: the catalogue says others print it."""
    case = cases["master-port-in-use"]
    logged = _true("bind_in_use_legacy", "message", "RuntimeError: Address already in use")
    assert _fact(case, {"bind_in_use_legacy": logged}, "bind_in_use_legacy").strength == "shared"


def test_a_cases_own_pattern_over_a_catalogued_line_takes_the_catalogues_word(
    cases: dict[str, Case],
) -> None:
    case = cases["cuda-illegal-memory-access-one-rank"]
    line = "terminate called after throwing an instance of 'c10::Error'"
    fact = _fact(case, {"cxx_terminate": _true("cxx_terminate", "log", line)}, "cxx_terminate")
    assert fact.strength == "context"
    assert fact.messages == ["libstdcxx.terminate.uncaught-exception"]


def test_a_status_line_the_case_narrows_with_keeps_is_its_own_fact(
    cases: dict[str, Case],
) -> None:
    """NCCL's `Bootstrap : Using` line is context; a case pattern that picks out a bridge or
    loopback entry (a prefix inside a list, which `where` cannot say: `keeps`) is the case's
    own fact, as a `where` on the message would be."""
    case = cases["nccl-socket-wrong-interface"]
    query = case.query("bad_iface")
    assert query is not None and getattr(query, "keeps", None)
    line = "node2:88:88 [0] NCCL INFO Bootstrap : Using docker0:172.17.0.1<0>"
    fact = _fact(case, {"bad_iface": _true("bad_iface", "log", line)}, "bad_iface")
    assert fact.strength == "own"
    assert fact.messages  # the line is a catalogued message all the same
