"""`kb diagnose --format markdown` as CommonMark and GitHub render it (markdown-it-py), and the
same sections as the text and JSON reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reportkit import (
    LIKELY,
    MISMATCH,
    copy_fixture,
    diagnose,
    likely_folder,
    oom_tail_folder,
    with_possible_folder,
)

markdown_it = pytest.importorskip("markdown_it")


def _parsers() -> list[object]:
    commonmark = markdown_it.MarkdownIt("commonmark")
    gfm = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"])
    return [commonmark, gfm]


def _fences(md: str) -> list[list[tuple[str, object]]]:
    """Per parser: each fenced block's content and whether it sits inside a list item."""
    out = []
    for parser in _parsers():
        depth, fences = 0, []
        for token in parser.parse(md):  # type: ignore[attr-defined]
            if token.type == "list_item_open":
                depth += 1
            elif token.type == "list_item_close":
                depth -= 1
            elif token.type == "fence":
                fences.append((token.content, depth > 0))
        out.append(fences)
    return out


def test_multi_line_commands_stay_whole_inside_their_list_item(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    md = diagnose(capsys, likely_folder(tmp_path), "--format", "markdown")
    data = json.loads(diagnose(capsys, likely_folder(tmp_path / "j"), "--format", "json"))
    commands = [
        c for r in data["matches"][0]["remedies"] for s in r["steps"] for c in s["commands"]
    ]
    multi = [c for c in commands if "\n" in c]
    assert multi, "the case has a multi-line command to test with"
    for fences in _fences(md):
        inside = {content.rstrip("\n") for content, in_item in fences if in_item}
        for command in multi:
            assert command in inside, f"not one block inside its step: {command[:40]}"
        assert not any("Remedies" in content or "Verify:" in content for content, _ in fences)


def test_verify_steps_are_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    md = diagnose(capsys, oom_tail_folder(tmp_path), "--format", "markdown")
    html = _parsers()[1].render(md)  # type: ignore[attr-defined]
    assert "Verify: A line 'Out of memory: Killed process" in html.replace("&#x27;", "'")


def test_possible_candidates_are_kept_beside_a_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = with_possible_folder(tmp_path)
    data = json.loads(diagnose(capsys, folder, "--format", "json"))
    assert data["matches"] and data["possible"]
    md = diagnose(capsys, folder, "--format", "markdown")
    assert "### Possible, from weaker signs" in md
    for v in data["possible"]:
        assert f"(`{v['id']}`)" in md


def test_confirming_evidence_apart_from_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copy_fixture(MISMATCH, tmp_path / "mismatch")
    data = json.loads(diagnose(capsys, folder, "--format", "json"))
    best = data["matches"][0]
    confirm = [m["description"] for m in best["missing"] if m["confirms"]]
    other = [m["description"] for m in best["missing"] if not m["confirms"]]
    assert confirm and other
    md = diagnose(capsys, folder, "--format", "markdown")
    assert "To confirm it, collect:" in md
    section = md.split("To confirm it, collect:", 1)[1].split("\n\n", 1)[1]
    section = section.split("collect:", 1)[0]  # up to the next heading that asks for evidence
    for what in confirm:
        assert what[:30] in section
    for what in other:
        assert what[:30] not in section


def test_json_and_markdown_carry_the_text_report_first_screen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = likely_folder(tmp_path)
    data = json.loads(diagnose(capsys, folder, "--format", "json"))
    assert data["schema"] == "kb.diagnosis/v1"
    report = data["report"]
    assert report["state"] == "match" and report["first_fix"]["steps"]
    # the next command collects what would settle it, from the case's own collect commands
    case_text = (LIKELY.parents[2] / "case.kb").read_text(encoding="utf-8")
    assert report["next"]["command"].splitlines()[0] in case_text
    assert report["next"]["why"].endswith("that would settle it")
    md = diagnose(capsys, folder, "--format", "markdown")
    assert report["next"]["command"] in md
    assert "**Fix first: " in md and "What it takes:" in md


def test_a_carriage_return_in_a_log_line_leaves_no_live_markup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A CR ends a line in CommonMark: inside a code span it would end the span and let the
    rest of the log line (`<script>`, a `#` heading) through as markup."""
    (tmp_path / "train.log").write_text(
        "RuntimeError: CUDA error: an illegal memory access was encountered"
        "\r<script>alert(1)</script>\r# forged heading\n",
        encoding="utf-8",
    )
    md = diagnose(capsys, tmp_path, "--format", "markdown")
    assert "\r" not in md
    for parser in _parsers():
        tokens = parser.parse(md)  # type: ignore[attr-defined]
        html = [t.content for t in tokens if t.type == "html_block"]
        assert not [h for h in html if "script" in h], html  # the report's own <details> only
        headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
        assert "forged heading" not in headings
        inline = [c.content for t in tokens for c in (t.children or []) if c.type == "html_inline"]
        assert not [h for h in inline if "script" in h], inline
