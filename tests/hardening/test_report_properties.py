"""Issue 29, property tests: whatever an evidence line holds (controls, backticks, CR,
`<script>`, bidi overrides, escape sequences), the markdown report keeps it inside code (no
HTML, no heading, no link of its own) and the terminal report shows it with nothing live.

Each example swaps the text (and file name) of every evidence line of two real diagnoses, one
where a case matches and one where none does (suspicious lines, progress, known messages), so
rendering is exercised without reading a folder per example."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from dsl.compiler import KnowledgeBase, load_knowledge_base
from kb.match.diagnose import Diagnosis, diagnose_bundle, read_bundle
from kb.report.markdown import render_markdown
from kb.report.terminal import safe_for_terminal
from kb.report.text import render_text

markdown_it = pytest.importorskip("markdown_it")

REPO = Path(__file__).resolve().parents[2]
MATCH = (
    REPO
    / "cases/gpu-ecc-xid-errors/fixtures/positive/gh-jade-hpc-194-one-node-pytorch-ecc-jobs-fail"
)
NONE_LOG = (
    "Traceback (most recent call last):\n"
    "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, "
    "unhandled system error, NCCL version 2.14.3\n"
    "[rank0]: epoch 1 step 20 loss 0.5\n"
)
PIECES = [
    "`", "``", "```", "\r", "\n", "\r\n", "<script>alert(1)</script>", "<img src=x onerror=a()>",
    "# heading", "\n# h1", "\r## h2", "<!--", "-->", "[x](javascript:alert(1))", "<http://x>",
    "\x1b[8m", "\x1b]0;title\x07", "\x1b]8;;http://x\x1b\\", "\x9b31m", "\u202e", "\u2066",
    "\u2069", "\u200f", "\x85", "\u2028", "\x00", "\x07", "\x7f", "|", "*", "_", "&amp;", "&#60;",
    "    ", "\t", " ", "a", "é", "漢", "\\", "> quote", "- item", "1. item", "===", "---",
]  # fmt: skip
LINES = st.one_of(
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=12).map("".join),
    st.text(min_size=1, max_size=60),
)
C0_C1_BIDI = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
PARSERS = [
    markdown_it.MarkdownIt("commonmark"),
    markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"]),
]


@lru_cache(maxsize=1)  # a module-wide value, not a fixture: hypothesis would print it
def _base(tmp: str) -> tuple[KnowledgeBase, dict[str, Any], dict[str, Any]]:
    kb = load_knowledge_base(with_env=False)
    none = Path(tmp) / "none"
    none.mkdir(exist_ok=True)
    (none / "rank0.log").write_text(NONE_LOG, encoding="utf-8")
    dumps = [
        diagnose_bundle(kb, read_bundle(kb, str(folder), workers=1)).model_dump()
        for folder in (MATCH, none)
    ]
    return kb, dumps[0], dumps[1]


class _Quiet:
    """The two diagnoses, shown by hypothesis as a name instead of 2 MB of repr."""

    def __init__(self, value: tuple[KnowledgeBase, Any, Any]) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "<two diagnoses>"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> _Quiet:
    return _Quiet(_base(str(tmp_path_factory.mktemp("props"))))


def _swapped(dump: Any, text: str, file: str) -> Any:
    """The diagnosis with every evidence line's text and file replaced."""
    if isinstance(dump, dict):
        if {"file", "line", "text"} <= dump.keys():
            return {**dump, "text": text, "file": file}
        return {k: _swapped(v, text, file) for k, v in dump.items()}
    if isinstance(dump, list | tuple):
        return type(dump)(_swapped(v, text, file) for v in dump)
    return dump


_DIAGNOSIS = TypeAdapter(Diagnosis)  # a dataclass: pydantic rebuilds it from its dump


def _diagnoses(base: _Quiet, text: str, file: str) -> list[Diagnosis]:
    _, match, none = base.value
    return [_DIAGNOSIS.validate_python(_swapped(d, text, file)) for d in (match, none)]


def _shape(md: str) -> list[tuple[list[str], int, int]]:
    """Per parser: (the HTML, the number of headings, of links and images): what a hostile
    line could add. The report's own HTML is its `<details>` around the evidence."""
    out = []
    for parser in PARSERS:
        html: list[str] = []
        headings = links = 0
        for token in parser.parse(md):
            children = [token, *(token.children or [])]
            html += [t.content for t in children if t.type in ("html_block", "html_inline")]
            headings += token.type == "heading_open"
            links += sum(t.type in ("link_open", "image") for t in children)
        out.append((html, headings, links))
    return out


SETTINGS = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SETTINGS
@given(text=LINES, file=LINES)
def test_markdown_keeps_any_evidence_line_inside_code(base: _Quiet, text: str, file: str) -> None:
    kb = base.value[0]
    for plain, hostile in zip(
        _diagnoses(base, "a line", "rank0.log"), _diagnoses(base, text, file), strict=True
    ):
        md = render_markdown(hostile, kb)
        assert _shape(md) == _shape(render_markdown(plain, kb)), repr(text)
        assert not C0_C1_BIDI.search(md), repr(C0_C1_BIDI.search(md))  # shown, not raw
        for html, _, _ in _shape(md):
            assert all(re.fullmatch(r"</?details>(<summary>\w+</summary>)?\n", h) for h in html)


@SETTINGS
@given(text=LINES, file=LINES)
def test_terminal_report_shows_any_evidence_line_with_nothing_live(
    base: _Quiet, text: str, file: str
) -> None:
    kb = base.value[0]
    for diagnosis in _diagnoses(base, text, file):
        for verbose in (False, True):
            out = render_text(diagnosis, kb, colour=False, verbose=verbose, width=100)
            assert not C0_C1_BIDI.search(out), repr(C0_C1_BIDI.search(out))
        coloured = safe_for_terminal(render_text(diagnosis, kb, colour=True, verbose=True))
        assert not re.search(r"\x1b(?!\[(?:0|1|2|31|32|33|36)m)", coloured)
        assert not re.search(r"[\x80-\x9f\u202a-\u202e\u2066-\u2069]", coloured)
