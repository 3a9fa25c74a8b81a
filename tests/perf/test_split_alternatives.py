"""Each distinct top-level alternative is one engine entry (kb.scan.syntax.alternatives,
kb.scan.shared.units): cases repeat catalogue wordings in their own alternations, and the
scan database compiled a third faster without the repeats (issue 27). A pattern must still
hit exactly the lines its whole regex matches (hyperscan splits; RE2 keeps whole patterns,
and must give the same lines)."""

from __future__ import annotations

import pytest
from scanlog import CHUNK, scan_log

from kb.scan.engine import ENGINES, PatternSet
from kb.scan.regexes import line_regex
from kb.scan.shared import Shared, units
from kb.scan.syntax import alternatives

LOG = (
    b"RuntimeError: CUDA out of memory. Tried to allocate 2 GiB\n"
    b"NCCL WARN Call to ibv_reg_mr failed\r\n"
    b"rank 3 epoch 12 loss 0.5\n"
    b"plain line with nothing\n"
    b"watchdog timeout after 1800000 ms\n"
    b"Killed\n"
    b"  Killed process 4242 (python)\n" + b"y" * 5000 + b" CUDA out of memory in a long line\n"
    b"error: ranks 1 and\n2 disagree\n"
)
# 20 and 21 share `CUDA out of memory`; 22 is anchored in one alternative only; 23 ends a
# CRLF line with `$`; 24 has `\s` (may span a newline: re-checked on the line); 25 holds
# a flag group, so it is not split; 26 nests alternations in a group
PATTERNS = [
    (20, r"CUDA out of memory|NCCL WARN Call to ibv_reg_mr", False),
    (21, r"watchdog timeout|CUDA out of memory|epoch \d+", False),
    (22, r"^Killed$|Killed process \d+", False),
    (23, r"ibv_reg_mr failed$|nothing$", False),
    (24, r"ranks\s+1\s+and\s+2|loss \d", False),
    (25, r"(?i)cuda OUT of memory|KILLED process", False),
    (26, r"(?:epoch|step) (?:1|2)\d|plain (?:line|row)", True),
]


def _scan(ps: PatternSet, muted: set[int] | None = None) -> list[tuple[int, list[int]]]:
    return scan_log(LOG, ps, muted)


def _truth(engine: str, muted: set[int] | None = None) -> list[tuple[int, list[int]]]:
    """Each whole regex searched on each line alone (CR of a CRLF ending dropped); RE2
    cannot stream, so it sees the first chunk of a longer line (kb.scan.engine's contract)."""
    out = []
    for no, line in enumerate(LOG.split(b"\n")[:-1], start=1):
        line = line[:-1] if line.endswith(b"\r") else line
        line = line[:CHUNK] if engine == "re2" else line
        ids = [
            pid
            for k, (pid, rx, ic) in enumerate(PATTERNS)
            if not (muted and k in muted) and line_regex(rx, ic).search(line)
        ]
        if ids:
            out.append((no, ids))
    return out


def test_alternatives_split_only_at_the_top() -> None:
    assert alternatives(r"a|(?:b|c)d|[|]e|f\|g") == ["a", "(?:b|c)d", "[|]e", r"f\|g"]
    assert alternatives("(?i)a|b") == ["(?i)a|b"]  # the flag reaches across `|`
    assert alternatives("a||b") == ["a||b"]  # an empty alternative: left whole
    assert alternatives("(?i:a)|b") == ["(?i:a)", "b"]


def test_units_share_an_alternative_among_patterns() -> None:
    exprs, flags, members = units([[b"x", b"y"], [b"y", b"z"], [b"y"], [b"x", b"x"]], [1, 1, 3, 1])
    assert exprs == [b"x", b"y", b"z", b"y"]
    assert flags == [1, 1, 1, 3]
    assert members == [[0, 3], [0, 1], [1], [2]]


@pytest.mark.parametrize("engine", ENGINES)
def test_split_patterns_hit_the_lines_their_whole_regex_matches(engine: str) -> None:
    ps = PatternSet(PATTERNS, engine=engine)
    if engine == "hyperscan":  # RE2 keeps whole patterns (see PatternSet._compile)
        assert isinstance(ps.backend, Shared)
        total = sum(len(alternatives(rx)) for _, rx, _ in PATTERNS)
        assert ps.backend.inner.n < total  # the shared alternative is one entry
    assert _truth(engine)  # the log does hit something
    assert _scan(ps) == _truth(engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_muting_a_pattern_keeps_the_alternatives_it_shares(engine: str) -> None:
    ps = PatternSet(PATTERNS, engine=engine)
    assert _scan(ps, muted={0}) == _truth(engine, muted={0})
    assert _scan(ps, muted={0, 1}) == _truth(engine, muted={0, 1})


@pytest.mark.parametrize("engine", ENGINES)
def test_a_record_read_back_scans_the_same(
    engine: str, tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path))
    first = _scan(PatternSet(PATTERNS, engine=engine))
    again = _scan(PatternSet(PATTERNS, engine=engine))  # from the prepared record and DB cache
    assert first == again == _truth(engine)


@pytest.mark.skipif("hyperscan" not in ENGINES, reason="RE2 keeps whole patterns")
def test_a_muted_pattern_leaves_the_engine_with_every_alternative() -> None:
    """Every alternative only a muted pattern asks for is left out of the engine's scan, not
    only its last one: a progress pattern of several alternatives (`step=…|'loss': …`) was
    still reported on every line of a console, 700,000 Python calls for 50 MB (issue 27)."""
    ps = PatternSet(PATTERNS, engine="hyperscan")
    assert ps.backend is not None
    both = b"Killed\n  Killed process 4242 (python)\n"  # each alternative of index 2 once
    n = len(PATTERNS)
    assert {code % n for code in ps.backend.scan_block(memoryview(both))} >= {2}
    assert 2 not in {code % n for code in ps.backend.scan_block(memoryview(both), {2})}
