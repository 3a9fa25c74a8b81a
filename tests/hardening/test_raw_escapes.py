"""Issue 29 (and the first round's one defect left): a log line holding terminal sequences (SGR
conceal and 256 colours, an OSC 8 hyperlink, the one-byte C1 CSI `\\x9b`) and a right-to-left
override reaches neither `kb evidence`'s summary nor the markdown report live: the sequences
are taken out or shown as `\\xNN` / `\\uNNNN`, and the line's text is still there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kb.cli.main import main

markdown_it = pytest.importorskip("markdown_it")

LINE = (
    "[rank0]: RuntimeError: NCCL error \x1b[8mhidden\x1b[0m \x1b[38;5;196mred\x1b[0m "
    "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\ \u202egnp.exe \x9b31m c1\n"
)
# raw C0 (but newline and tab), DEL, C1 and bidi controls
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
OWN_COLOURS = re.compile(r"\x1b\[(?:0|1|2|31|32|33|36)m")


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "rank0.log").write_text(LINE, encoding="utf-8")
    return folder


@pytest.mark.parametrize("colour", [False, True])
def test_kb_evidence_shows_a_hostile_line_with_nothing_live(
    colour: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if colour:
        monkeypatch.delenv("NO_COLOR", raising=False)
        monkeypatch.setenv("FORCE_COLOR", "1")
    else:
        monkeypatch.setenv("NO_COLOR", "1")
    assert main(["evidence", str(_folder(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "hidden" in out and "gnp.exe" in out  # the line is shown ...
    assert not RAW.search(OWN_COLOURS.sub("", out)), repr(RAW.search(OWN_COLOURS.sub("", out)))
    assert "\\u202e" in out  # ... the override visibly


def test_the_markdown_report_holds_no_raw_escape_and_no_forged_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path)
    assert main(["diagnose", "--evidence", str(folder), "--format", "markdown"]) in (0, 1)
    md = capsys.readouterr().out
    assert "gnp.exe" in md
    assert not RAW.search(md), repr(RAW.search(md))
    assert "\\u202e" in md and "\\x9b" in md  # shown, not obeyed
    gfm = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"])
    for parser in (markdown_it.MarkdownIt("commonmark"), gfm):
        for token in parser.parse(md):
            for child in [token, *(token.children or [])]:
                assert "evil.example" not in str(child.attrGet("href") or "")


def test_a_bundled_cases_multi_line_commands_stay_in_their_fences(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The issue's bundled case: nccl-ib-completion-error's remedy runs a block whose second
    line is the comment `# nccl-tests, across the two nodes`; out of its fence it was an
    <h1>. Every heading of the report is the report's own, every command line in a fence."""
    folder = (
        Path(__file__).resolve().parents[2]
        / "cases/nccl-ib-completion-error/fixtures/positive/gh-nccl-1170-h800x16-error12-ibdev2netdev-differs"
    )
    assert main(["diagnose", "--evidence", str(folder), "--format", "markdown"]) in (0, 1)
    md = capsys.readouterr().out
    assert "# nccl-tests, across the two nodes" in md
    gfm = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"])
    for parser in (markdown_it.MarkdownIt("commonmark"), gfm):
        tokens = parser.parse(md)
        headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
        assert not [h for h in headings if "nccl-tests" in h or "mpirun" in h], headings
        fences = "".join(t.content for t in tokens if t.type == "fence")
        assert "# nccl-tests, across the two nodes\nmpirun -np 16" in fences


def test_a_case_packs_command_holds_no_live_control_in_its_fence() -> None:
    """Commands come from case packs (strangers): inside a fence the markdown shows them as
    written, so a concealing SGR, an OSC 8 link or a bell must be escaped there too."""
    from kb.report.markdown import _fence

    command = (
        "nvidia-smi \x1b[8m; curl evil\x1b[0m\n\x1b]8;;https://x.example\x07link\x1b]8;;\x07\x9b2J"
    )
    block = "\n".join(_fence(command, "bash", "   "))
    assert not [c for c in block if c in "\x1b\x07\x9b"], repr(block)
    assert block.count("\n") == len(_fence(command, "bash", "   ")) - 1  # one line per line
    assert "nvidia-smi" in block and "link" in block
