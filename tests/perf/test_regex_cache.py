"""`dsl.regex_cache`: the catalogue's Python regexes are compiled once per machine, and what
it hands back is `re.compile`'s own object (issue 27: half a second of every warm
`kb diagnose` went to compiling them again)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsl import regex_cache

PATTERNS = [
    r"NCCL WARN (?P<what>.*?) timed out after (?P<ms>\d+) ?ms",
    r"(?i)watchdog caught collective operation timeout",
    r"(?:CUDA error: (?:out of memory|an illegal memory access))|(?:Xid \d{2,3})",
    r"^\s*\[rank(\d+)\]:\s+(?:Traceback|RuntimeError)",
    r"ranks? (\d+(?:, ?\d+)*) (?:did not|failed to) (?:join|reach)\b",
    r"é(?=x)|ß|\w+ü",
]


@pytest.fixture()
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path))
    regex_cache._reset_for_tests()
    yield tmp_path
    regex_cache._reset_for_tests()


def _new_process() -> None:
    """What a fresh process knows: only the store on disk."""
    regex_cache._reset_for_tests()


def test_the_object_is_re_compiles_own(store: Path) -> None:
    for flags in (0, re.IGNORECASE, re.MULTILINE | re.DOTALL):
        for pattern in PATTERNS:
            got = regex_cache.compile(pattern, flags)
            want = re.compile(pattern, flags)
            assert got == want  # same pattern, flags and engine code
            assert got.groupindex == want.groupindex and got.groups == want.groups


def test_a_second_process_reads_the_store_without_parsing(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for pattern in PATTERNS:
        regex_cache.compile(pattern)
    regex_cache.flush()
    assert list(store.glob("regex-*.marshal"))
    _new_process()

    def refuse(*_: object) -> None:
        raise AssertionError("parsed again although the store holds it")

    monkeypatch.setattr(regex_cache._parser, "parse", refuse)
    text = "[rank3]:   RuntimeError: NCCL WARN net timed out after 1800 ms"
    for pattern in PATTERNS:
        got = regex_cache.compile(pattern)
        assert got == re.compile(pattern)
        want = re.compile(pattern).search(text)
        found = got.search(text)
        assert (found and found.group(0)) == (want and want.group(0))


def test_a_corrupt_or_foreign_store_is_ignored(store: Path) -> None:
    regex_cache.compile(PATTERNS[0])
    regex_cache.flush()
    (path,) = store.glob("regex-*.marshal")
    blob = path.read_bytes()
    for broken in (blob[: len(blob) // 2], b"garbage", blob.replace(b"kb-regex", b"kb-other", 1)):
        path.write_bytes(broken)
        _new_process()
        assert regex_cache.compile(PATTERNS[0]) == re.compile(PATTERNS[0])
        assert regex_cache._known == {}  # nothing was trusted


def test_a_bad_pattern_raises_as_re_does(store: Path) -> None:
    with pytest.raises(re.error) as ours:
        regex_cache.compile(r"(unclosed")
    with pytest.raises(re.error) as theirs:
        re.compile(r"(unclosed")
    assert str(ours.value) == str(theirs.value)
    assert not regex_cache._new  # nothing stored for it


@pytest.mark.slow  # the index is built from the catalogue in an empty cache
def test_every_catalogue_pattern_is_unchanged(store: Path) -> None:
    """The patterns the matcher actually compiles, through a write and a read back."""
    from dsl.catalogue.index import message_index

    patterns = [e.pattern for e in message_index().messages][:300]
    assert patterns
    for pattern in patterns:
        try:
            regex_cache.compile(pattern)
        except re.error:
            continue
    regex_cache.flush()
    _new_process()
    for pattern in patterns:
        try:
            want = re.compile(pattern)
        except re.error:
            continue
        assert regex_cache.compile(pattern) == want
