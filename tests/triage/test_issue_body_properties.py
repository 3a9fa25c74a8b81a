"""Any text at all splits without an error, and every line lands in at most one place, at its
own number: words, one block, or nothing (fences, tags, comments, blank lines)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.evidence.github_issue import load_issue
from kb.evidence.issue_body import split_body
from kb.evidence.reader import read_evidence

PIECES = st.sampled_from(
    ["```", "```python", "~~~", "````", "<details>", "</details>", "<summary>x.log</summary>",
     "> ", ">> ", "    ", "\t", "- ", "1. ", "<!--", "-->", "### rank0.log", "pip list:",
     "![a](http://x/y.png)", "[l](http://x)", "NCCL WARN x", "Traceback (most recent call last):",
     "import torch", "def f():", "It hangs at eval.", "torch==2.1.0", "", " "]
)  # fmt: skip
LINES = st.lists(st.lists(PIECES | st.text(max_size=8), max_size=4).map("".join), max_size=40)


@settings(max_examples=300, deadline=None)
@given(LINES)
def test_every_line_has_one_place(lines: list[str]) -> None:
    text = "\n".join(lines)
    s = split_body(text)
    count = len(text.splitlines())
    placed: list[int] = list(s.prose)
    for b in s.blocks:
        assert 1 <= b.first <= b.last <= count
        placed += range(b.first, b.last + 1)
    assert len(placed) == len(set(placed)), "a line is in two places"
    assert all(1 <= no <= count for no in placed)


@settings(max_examples=60, deadline=None)
@given(LINES, st.sampled_from(["issue.md", "issue.json"]))
def test_any_body_reads_without_a_traceback(tmp_path_factory, lines: list[str], name: str) -> None:  # type: ignore[no-untyped-def]
    text = "\n".join(lines)
    path = Path(tmp_path_factory.mktemp("b")) / name
    data = (
        json.dumps({"title": "t", "body": text, "user": {"login": "a"}})
        if name.endswith("json")
        else text
    )
    path.write_text(data, encoding="utf-8")
    if name.endswith("json"):
        assert load_issue(path.read_bytes()) is not None
    bundle = read_evidence(path)
    assert not [s for s in bundle.facts.skipped if "failed" in s.reason]
