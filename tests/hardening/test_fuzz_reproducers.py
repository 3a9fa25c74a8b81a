"""Inputs the long fuzz run found failing stay fixed (tests/hardening/fuzz_reproducers/)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from dsl.api import load_cases
from kb.scan import syntax

HERE = Path(__file__).resolve().parent / "fuzz_reproducers"


def test_a_huge_literal_is_refused_before_any_engine_compiles_it(tmp_path: Path) -> None:
    """A 5,000-digit literal in an alternation took hyperscan 90 s to compile in `kb check`:
    the pattern is now refused by its length, with a located error, before compiling."""
    folder = tmp_path / "fuzz"
    folder.mkdir()
    shutil.copy(HERE / "case-3609101113-hang.kb", folder / "case.kb")
    result = load_cases([tmp_path], with_env=False)
    found = [d for d in result.diagnostics if "plain characters" in d.message]
    assert found and found[0].line > 0, [d.message for d in result.diagnostics]


def test_the_literal_bound_leaves_every_bundled_pattern_alone() -> None:
    cases = load_cases(with_env=False).cases
    assert cases
    for case in cases:
        for q in case.queries:
            pattern = getattr(q, "pattern", None)
            if pattern is not None:
                assert syntax.literal_problem(pattern.pattern) is None, (case.id, q.name)


def test_a_folder_nested_thousands_deep_is_skipped_and_said(tmp_path: Path) -> None:
    """The walk was recursive: 1,500 nested folders raised RecursionError out of kb evidence."""
    from kb.evidence.inputs import MAX_FOLDER_DEPTH
    from kb.evidence.reader import read_evidence

    deep = tmp_path / "ev"
    (deep / "rank0.log").parent.mkdir(parents=True)
    (deep / "rank0.log").write_text("[rank0]: RuntimeError: boom\n", encoding="utf-8")
    fd = os.open(deep, os.O_RDONLY)
    try:  # one level at a time, relative to the last: the whole path passes PATH_MAX
        for _ in range(1500):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)
    try:
        facts = read_evidence(deep).facts
    finally:
        _remove_chain(deep)
    assert [f.path for f in facts.files] == ["rank0.log"]
    (skip,) = facts.skipped
    assert f"deeper than {MAX_FOLDER_DEPTH} levels" in skip.reason
    assert skip.path.count("/") == MAX_FOLDER_DEPTH - 1


def _remove_chain(top: Path) -> None:
    """Remove top/d/d/…/d without recursion (pytest's own clean-up, shutil.rmtree, recurses
    and would fail on it in a later session): lift each child over its parent, drop the
    emptied parent, repeat."""
    while (top / "d").is_dir():
        child = top / "d" / "d"
        if child.is_dir():
            child.rename(top / "lifted")
        (top / "d").rmdir()
        if (top / "lifted").is_dir():
            (top / "lifted").rename(top / "d")


def test_a_long_line_of_word_characters_is_no_grep_prefix_in_linear_time() -> None:
    """The `grep -H` prefix pattern paired a lazy and a greedy run over the same characters:
    0.18 s of CPU on an 8 KB line and quadratic beyond (a fuzzed 19 MB archive spent its
    CPU budget on it). A 400 KB line now costs well under the 5 CPU seconds this child is
    allowed; the old pattern needed minutes of CPU for it and the kernel would end it."""
    import subprocess
    import sys

    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_CPU, (5, 5))\n"
        "from kb.evidence.ranks import grep_prefix\n"
        "assert grep_prefix('a' * 400_000) is None\n"
        "assert grep_prefix('b/' * 2000 + 'c' * 400_000 + '.log') is None\n"
        "assert grep_prefix('logs/rank3.log:12:boom') == ('logs/rank3.log', 'boom')\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-500:]
