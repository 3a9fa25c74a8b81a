"""A pattern's factor (kb.scan.literals) is only ever a necessary condition: a text RE2
matches always holds one of its runs. And an RE2 set given the factors answers a small text
as the whole set does, without compiling the set."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import re2

from kb.scan import _re2, literals, syntax
from kb.scan.engine import PatternSet, scan_stream

ROOT = Path(__file__).resolve().parents[3]


def _case_patterns(notes_only: bool = False) -> list[tuple[str, bool]]:
    """(regex, ignore_case) of the bundled cases' log queries (or only the notes-only ones,
    the set the reader matches with RE2)."""
    from dsl.compiler import load_knowledge_base

    kb = load_knowledge_base([ROOT / "cases"], with_env=False)
    found = {
        (p.regex, p.ignore_case)
        for c in kb.cases
        for p in c.patterns
        if not notes_only or (p.sources and set(p.sources) <= {"notes"})
    }
    return sorted(found)


def _texts() -> list[bytes]:
    """Every notes file of the bundled fixtures and the bundled example's files."""
    paths = sorted(ROOT.glob("cases/*/fixtures/*/*/notes.md"))
    paths += sorted(p for p in (ROOT / "examples" / "hang-at-eval-8gpu").rglob("*") if p.is_file())
    return [p.read_bytes() for p in paths]


def test_a_pattern_left_out_for_a_text_has_no_match_in_it() -> None:
    """Every case pattern against every notes file of the fixtures and the example's files:
    where no run of its factor is in the text, RE2 finds no match there either."""
    patterns = _case_patterns()
    exprs = [syntax.to_line_end(syntax.crlf_dollar(rx)) for rx, _ in patterns]
    factors = [literals.factor(e) for e in exprs]
    assert sum(f is not None for f in factors) > len(factors) * 3 // 4  # it filters at all
    programs = [
        re2.compile(b"(?m)" + e.encode(), _re2.options(ic))
        for e, (_, ic) in zip(exprs, patterns, strict=True)
    ]
    texts = _texts()
    assert len(texts) > 500
    left_out = 0
    for text in texts:
        folded = literals.fold(text)
        for idx, runs in enumerate(factors):
            if not literals.may_occur(runs, folded):
                left_out += 1
                assert programs[idx].search(text) is None, (exprs[idx], text[:200])
    assert left_out > len(texts) * len(factors) // 2  # most patterns are left out


@pytest.mark.parametrize(
    ("expr", "text"),
    [
        ("(?i)CAF\\xe9 error", b"caf\xe9 ERROR"),  # an escaped byte is one Latin-1 byte
        ("caf\\xe9 (error|stuck)", b"caf\xe9 stuck"),
        ("(?i)\u00c9T\u00c9 x", "\u00c9t\u00c9 X".encode()),  # a raw letter is its UTF-8 bytes
        ("(?i)\u5d29\u6e83|stuck", "\u5d29\u6e83\u4e86".encode()),  # raw UTF-8 runs
        ("(?i)\\bNPUs?\\b|torch[_-]npu", b"on 8 NPUs"),
    ],
)
def test_the_factor_holds_where_re2_matches(expr: str, text: bytes) -> None:
    caseless = expr.startswith("(?i)")
    opts = _re2.options(caseless)
    assert re2.search(expr.removeprefix("(?i)").encode(), text, opts) is not None
    assert literals.may_occur(literals.factor(expr), literals.fold(text))


def test_unsure_syntax_has_no_factor() -> None:
    for expr in (r"[[:alpha:]]+ error", r"\Qa.b\E", r"(?x) a b", r"\pL+ x"):
        assert literals.factor(expr) is None


def test_a_small_text_is_matched_without_the_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rebuilt from its record, an RE2 set answers a notes-sized text with the programs of
    the patterns it may hold, as the whole set answered it; the set is built for a large one."""
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path))
    patterns = [(i, rx, ic) for i, (rx, ic) in enumerate(_case_patterns(notes_only=True))]
    text = (ROOT / "examples" / "hang-at-eval-8gpu" / "notes.md").read_bytes()

    def hits(ps: PatternSet, data: bytes) -> list[tuple[int, list[int]]]:
        out: list[tuple[int, list[int]]] = []
        scan_stream(io.BytesIO(data), ps, lambda n, _line, ids: out.append((n, ids)))
        return out

    first = PatternSet(patterns, engine="re2")  # compiles the set, writes the record
    expected = hits(first, text)
    assert expected  # the comparison can fail
    built: list[object] = []
    real = re2.Set.SearchSet

    def counted(options: object = None) -> object:
        built.append(options)
        return real(options)

    monkeypatch.setattr(re2.Set, "SearchSet", counted)
    again = PatternSet(patterns, engine="re2")  # from the record
    assert hits(again, text) == expected
    assert built == []
    large = text * ((64 << 10) // len(text) + 1)  # longer than _re2.SMALL
    assert hits(again, large)[: len(expected)] == expected
    assert len(built) == 1
