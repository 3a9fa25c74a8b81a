"""A set's trailing patterns (the case patterns whole-file kinds are scanned for) answer from
the whole set's database, exactly as a set compiled from those patterns alone would, long
lines, muting and pickling included, on every engine (kb.scan.subset)."""

from __future__ import annotations

import io
import pickle

import pytest

from kb.evidence.patterns import LogPattern, compile_patterns
from kb.scan.engine import ENGINES, PatternSet, scan_stream
from kb.scan.subset import Tail

LOG = (
    b"NCCL WARN timeout on rank 3\n"
    b"plain line with a Traceback word\n"
    b"RuntimeError: CUDA out of memory\n" + b"x" * 5000 + b" NCCL WARN inside a long line\n"
    b"nccl warn lower case\r\n"
    b"tail without newline: out of memory"
)
HEAD = [(0, r"Traceback", False), (1, r"RuntimeError", False), (2, r"NCCL WARN", False)]
CASES = [(7, r"NCCL WARN", True), (8, r"out of memory$", False), (9, r"rank \d+", False)]


def _scan(ps: PatternSet, muted: set[int] | None = None) -> list[tuple[int, bytes, list[int]]]:
    got: list[tuple[int, bytes, list[int]]] = []
    scan_stream(
        io.BytesIO(LOG),
        ps,
        lambda no, raw, ids: got.append((no, raw, ids)),
        chunk_size=1024,  # the long line goes through the engine's stream mode
        max_line_bytes=64,
        muted=muted,
    )
    return got


@pytest.mark.parametrize("engine", ENGINES)
def test_tail_answers_as_the_patterns_alone(engine: str) -> None:
    whole = PatternSet(HEAD + CASES, engine=engine)
    view = whole.tail(len(HEAD))
    alone = PatternSet(CASES, engine=engine)
    assert isinstance(view.backend, Tail)
    assert view.ids == [7, 8, 9] and view.index_of == alone.index_of
    assert _scan(view) == _scan(alone)
    assert [ids for _, _, ids in _scan(view)] != []  # the log does hold case hits
    assert _scan(view, muted={0}) == _scan(alone, muted={0})


def test_tail_pickles_as_a_view_of_its_parent() -> None:
    whole = PatternSet(HEAD + CASES)
    view = pickle.loads(pickle.dumps(whole.tail(len(HEAD))))
    assert isinstance(view.backend, Tail)
    assert view.patterns == tuple(CASES)
    assert _scan(view) == _scan(PatternSet(CASES))


@pytest.mark.parametrize("start", [-1, 6])
def test_tail_outside_the_set_is_refused(start: int) -> None:
    with pytest.raises(ValueError, match="no patterns"):
        PatternSet(HEAD + CASES).tail(start)


def test_reader_builds_one_database_for_log_and_case_patterns() -> None:
    compiled = compile_patterns((LogPattern("k1", r"ZeroDivisionError"), LogPattern("k2", "q9z")))
    assert compiled.case_set is not None
    assert isinstance(compiled.case_set.backend, Tail)
    assert compiled.case_set.backend.inner is compiled.log_set.backend
    assert [compiled.owners[pid] for pid in compiled.case_set.ids] == [
        ("<case>", "k1"),
        ("<case>", "k2"),
    ]
