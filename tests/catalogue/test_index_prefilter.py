"""The catalogue index finds exactly the messages whose pattern a line matches: its
literal pre-filter (what every match must hold) and its gram lookup only skip work."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsl.catalogue import index, registry
from dsl.catalogue.load import load_catalogue

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "hang-at-eval-8gpu"


@pytest.mark.parametrize(
    ("regex", "required"),
    [
        # an optional tail (a line cut at the margin) holds none of its words
        (r"invalid\s+device\s+(?:function|fu(?:n)?)?", {"invalid", "device"}),
        # one branch's words are not the whole's; words every branch holds are
        (r"(?:DistNetworkError)|(?:Connection timed out)", set()),
        (r"(?:NCCL WARN socket)|(?:NCCL INFO socket)", {"nccl "}),
        # a repeat holds its body once at least when its minimum is one
        (r"(?:abcd\s)+x(?:wxyz)*", {"abcd"}),
        (r"KeyError: 'LOCAL_RANK'", {"keyerror: 'local_rank'"}),
        (r"[A-Z]+ab", set()),
    ],
)
def test_required_runs_are_what_every_match_holds(regex: str, required: set[str]) -> None:
    assert index._required_runs(regex) == required


def test_a_pattern_python_cannot_parse_requires_nothing() -> None:
    assert index._required_runs(r"(?P<x>a") == set()


def _entry(pattern: str, wordings: list[str]) -> index.IndexedMessage:
    return index.IndexedMessage(
        id=pattern,
        emitter="t",
        severity="error",
        role="shared",
        means="",
        pattern=pattern,
        literal=index._shared_literal(wordings),
        literals=index._literals(wordings),
    )


def test_a_line_holding_any_wording_finds_its_message() -> None:
    """Filed under one run per wording: a line with the second wording only is found."""
    wordings = [r"DistNetworkError: Connection timed out", r"RuntimeError: Connection timed out"]
    entries = [
        _entry("|".join(f"(?:{w})" for w in wordings), wordings),
        _entry(r"unrelated\s+message", [r"unrelated\s+message"]),
    ]
    found = index.messages_in("RuntimeError: Connection timed out", entries)
    assert [e.id for e in found] == [entries[0].id]
    assert index.messages_in("nothing to see here", entries) == []


def _naive(text: str, entries: list[index.IndexedMessage]) -> list[str]:
    text = text[: index.MAX_LINE]
    out = []
    for e in entries:
        compiled = index.compiled(e.pattern)
        if compiled is not None and compiled.search(text):
            out.append(e.id)
    return out


def test_the_bundled_index_agrees_with_every_pattern_run_alone() -> None:
    """Over every catalogue sample and the bundled example's lines: the same messages as
    running each of the ~1,000 patterns on the line."""
    catalogue = load_catalogue(with_env=False).catalogue
    with registry.use(catalogue):
        entries = index.build().messages
    lines = [s.text for m in catalogue.messages.values() for s in m.samples]
    for path in sorted(EXAMPLE.rglob("*")):
        if path.is_file():
            lines += path.read_text(encoding="utf-8", errors="replace").splitlines()
    assert len(lines) > 500
    found = 0
    for line in lines:
        ids = [e.id for e in index.messages_in(line, entries)]
        assert ids == _naive(line, entries), line
        found += len(ids)
    assert found > 300  # the samples are the messages' own lines


def test_the_cached_index_brings_its_prefilter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A warm run reads the prefilter over all the index's entries from the cache file (it
    took 0.03 s to build), the same one the entries give; built by other code, it is built
    again once and written back, so the next run reads it again."""
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(index, "_loaded", {})
    monkeypatch.setattr(index, "_prefilters", {})
    built = index.message_index()  # built, and written to the cache
    index._loaded.clear()
    index._prefilters.clear()
    read = index.message_index()  # read back
    assert read is not built and read.prefilter is not None
    entries, prefilter = index._prefilters[id(read.messages)]
    assert entries is read.messages
    assert prefilter == index._build_prefilter(read.messages)
    assert prefilter.by_gram  # the comparison can fail
    index._loaded.clear()
    index._prefilters.clear()
    monkeypatch.setattr(index, "_code_version", lambda: "another-build")
    calls: list[int] = []
    build = index._build_prefilter
    monkeypatch.setattr(index, "_build_prefilter", lambda e: calls.append(1) or build(e))
    again = index.message_index()
    assert calls == [1] and again.prefilter is not None
    assert again.prefilter.code == "another-build"
    index._loaded.clear()
    index._prefilters.clear()
    index.message_index()  # the next run: read from the file rewritten, not built
    assert calls == [1]
    assert index._prefilters
