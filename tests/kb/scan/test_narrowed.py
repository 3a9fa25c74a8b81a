"""A pattern narrowed to the alternatives a small text may hold (kb.scan.narrowed) matches
there exactly as the whole pattern does, and costs less to build."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import re2
from test_literals import _case_patterns, _texts  # run from tests/kb/scan: on sys.path

from kb.scan import _re2, literals, narrowed, syntax
from kb.scan.engine import PatternSet, scan_stream

ROOT = Path(__file__).resolve().parents[3]


def _backends() -> tuple[_re2.Re2Backend, _re2.Re2Backend, int]:
    """The bundled notes-only patterns as an RE2 backend without parts (each pattern told by
    its factor) and one with them, as `PatternSet` builds it (a pattern with parts is told
    by its alternatives' factors)."""
    patterns = _case_patterns(notes_only=True)
    exprs = [syntax.to_line_end(syntax.crlf_dollar(rx)).encode() for rx, _ in patterns]
    flags = [_re2.FLAG_MULTILINE | (_re2.FLAG_CASELESS * ic) for _, ic in patterns]
    factors = [literals.factor(e.decode()) for e in exprs]
    parts = [narrowed.parts_of(rx) for rx, _ in patterns]
    assert sum(p is not None for p in parts) > len(parts) // 2  # most can be narrowed
    whole = _re2.Re2Backend(exprs, flags, factors)
    own = [f if p is None else None for f, p in zip(factors, parts, strict=True)]
    return whole, _re2.Re2Backend(exprs, flags, own, parts), len(patterns)


def test_a_narrowed_backend_finds_what_the_whole_patterns_find() -> None:
    """Every notes file of the fixtures and every file of the example: the same end offsets
    for the same patterns, in the same order; and the same answer for each line alone."""
    whole, narrow, n = _backends()
    texts = [t for t in _texts() if len(t) <= _re2.SMALL]
    assert len(texts) > 500
    found = 0
    for text in texts:
        expected = whole.scan_block(memoryview(text))
        assert narrow.scan_block(memoryview(text)) == expected, text[:200]
        found += len(expected)
        lines = text.split(b"\n")
        hit_lines = {text.count(b"\n", 0, code // n) for code in expected}
        for no in sorted(hit_lines)[:5]:
            line = lines[no].removesuffix(b"\r")
            everything = set(range(n))
            assert narrow.alone(line, everything) == whole.alone(line, everything), line
    assert found > 1000  # the comparison can fail


def test_a_narrowed_backend_compiles_only_what_the_text_may_hold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    whole, narrow, _ = _backends()
    text = (ROOT / "examples" / "hang-at-eval-8gpu" / "notes.md").read_bytes()
    compiled: dict[str, int] = {"whole": 0, "narrow": 0}
    real = re2.compile

    for name, backend in (("whole", whole), ("narrow", narrow)):

        def counting(pattern: bytes, options: object = None, name: str = name) -> object:
            compiled[name] += len(pattern)
            return real(pattern, options)

        monkeypatch.setattr(re2, "compile", counting)
        backend.scan_block(memoryview(text))
    assert 0 < compiled["narrow"] < compiled["whole"] // 2


@pytest.mark.parametrize(
    ("regex", "text", "expected"),
    [
        ("stuck at eval|hang(s|ing)? at step [0-9]+", "it hangs at step 3", 1),
        ("a|b|c", "xbx", 1),
        ("x[0-9]+|y", "y", 1),  # the whole pattern ends in a repetition: `.*$` kept
        ("foo$|bar", "foo", 1),  # `$` rewritten alternative by alternative
        ("foo|bar", "baz", 0),  # holds none: no program at all
    ],
)
def test_narrowed_expressions(regex: str, text: str, expected: int) -> None:
    parts = narrowed.parts_of(regex)
    assert parts is not None
    whole = syntax.to_line_end(syntax.crlf_dollar(regex))
    assert narrowed.narrowed(parts, "".join(a for a, _ in parts[1])) in (whole, None)
    found = narrowed.narrowed(parts, literals.fold(text.encode()))
    assert (found is not None) == bool(expected)
    if found is not None:
        assert found.endswith(".*$") == whole.endswith(".*$")
        assert re2.search(found.encode(), text.encode()) is not None


def test_one_alternative_or_a_flag_group_is_not_cut() -> None:
    assert narrowed.parts_of("NCCL WARN") is None
    assert narrowed.parts_of("(?i)hang|stuck") is None


@pytest.mark.parametrize(
    "bad", [[True, [["only one", None]]], "x", [1, 2], [True, [["a", 5], ["b", None]]]]
)
def test_the_parts_are_recorded_and_bad_ones_are_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: object
) -> None:
    """The parts live in the pattern set's record (kb.scan.prepared): read back, they give
    the same hits; a part that is not what `parts_of` writes is not used (the whole pattern
    is), and a parts list of the wrong length makes the record unusable (rebuilt)."""
    from kb.scan import prepared

    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path))
    patterns = [(0, "stuck at eval|hang(s|ing)? at step [0-9]+", True), (1, "oom|OOM", False)]
    text = b"Hangs at step 4\nall fine\nOOM\n"

    def hits(ps: PatternSet) -> list[tuple[int, list[int]]]:
        out: list[tuple[int, list[int]]] = []
        scan_stream(io.BytesIO(text), ps, lambda no, _raw, ids: out.append((no, ids)))
        return out

    expected = hits(PatternSet(patterns, engine="re2"))
    assert expected == [(1, [0]), (3, [1])]
    key = prepared.record_key(tuple(patterns), "re2")
    record = prepared.load(key, len(patterns))
    assert record is not None and record[4] is not None and record[4][0] is not None
    assert hits(PatternSet(patterns, engine="re2")) == expected  # narrowed, from the record
    exprs, verify, alts, factors, parts = record
    prepared.store(key, exprs, verify, alts, factors, [bad, *parts[1:]])
    assert prepared.load(key, len(patterns)) is not None
    assert hits(PatternSet(patterns, engine="re2")) == expected  # the whole pattern instead
    prepared.store(key, exprs, verify, alts, factors, parts[:1])
    assert prepared.load(key, len(patterns)) is None
    assert hits(PatternSet(patterns, engine="re2")) == expected  # rebuilt
    assert prepared.load(key, len(patterns)) is not None
