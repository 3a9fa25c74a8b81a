"""An issue body as posted: which lines are words, which are pasted output, and that the
report cites the body's own line numbers (kb/evidence/issue_body.py, issue_tasks.py)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from kb.cli.main import main
from kb.evidence.github_issue import TRIAGE_MARKER, parse_issue
from kb.evidence.issue_body import split_body
from kb.evidence.reader import read_evidence

# The watchdog line is the one tests/kb/test_pasted_evidence.py quotes from a real report.
WATCHDOG = (
    "[rank1]:[E1103 06:18:03.551201887 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught "
    "collective operation timeout: WorkNCCL(SeqNum=20811, OpType=ALLREDUCE, NumelIn=1, "
    "NumelOut=1, Timeout(ms)=1800000) ran for 1800049 milliseconds before timing out."
)
PIP = "Package    Version\n---------- -------\ntorch      2.1.0\naccelerate 0.28.0\n"

BODY = f"""### Describe the bug

<!-- Please run `accelerate env` and paste it below. NCCL WARN template text -->
Training hangs when saving after validation; only rank 1 is alive.
![screenshot](https://example.invalid/shot.png) see [the docs](https://example.invalid/d)

### rank1.log

```
{WATCHDOG}
```

<details><summary>pip list</summary>

{PIP}
</details>

Indented, as some paste:

    {WATCHDOG}

> {WATCHDOG}

> I think it is the network, as the maintainers said.
"""


def _line_of(text: str, needle: str, after: int = 0) -> int:
    lines = text.splitlines()
    return next(i for i, ln in enumerate(lines, 1) if i > after and needle in ln)


def test_split_sorts_words_from_output() -> None:
    s = split_body(BODY)
    fence = _line_of(BODY, "Watchdog")
    blocks = {(b.origin, b.first): b for b in s.blocks}
    assert ("fence", fence) in blocks and blocks[("fence", fence)].label == "rank1.log"
    pip = blocks[("details", _line_of(BODY, "Package"))]
    assert pip.label == "pip-list.txt" and pip.lines[2].startswith("torch")
    indented = blocks[("indented", _line_of(BODY, "Watchdog", fence))]
    assert indented.lines == [WATCHDOG]  # four spaces of indentation taken off
    quote_at = _line_of(BODY, f"> {WATCHDOG[:10]}")
    assert blocks[("quote", quote_at)].lines == [WATCHDOG]
    words = set(s.prose.values())
    assert "Training hangs when saving after validation; only rank 1 is alive." in words
    assert not any("template text" in w for w in words)  # an HTML comment is not read
    assert not any("Watchdog" in w for w in words)
    assert any(w.startswith("> I think") for w in words)  # a quoted sentence stays words
    assert "### rank1.log" not in words  # a caption naming the file is not words
    kinds = {(r.kind, r.url) for r in s.references}
    assert kinds == {
        ("image", "https://example.invalid/shot.png"),
        ("link", "https://example.invalid/d"),
    }


def test_unclosed_fence_runs_to_the_end_and_tildes_count() -> None:
    s = split_body("words\n~~~\nNCCL WARN a\n~~~\n````\nNCCL WARN b\n```\nstill inside\n")
    assert [(b.first, b.last) for b in s.blocks] == [(3, 3), (6, 8)]


def test_list_continuation_is_not_code() -> None:
    s = split_body("- first step\n\n    more words of the same item\n")
    assert not s.blocks and 3 in s.prose


def _files(bundle: object) -> dict[str, str]:
    return {f.path: f.kind for f in bundle.facts.files}  # type: ignore[attr-defined]


def test_each_part_is_read_by_its_reader_at_body_lines(tmp_path: Path) -> None:
    path = tmp_path / "issue.md"
    path.write_text(BODY, encoding="utf-8")
    bundle = read_evidence(path)
    kinds = _files(bundle)
    assert kinds["issue.md"] == "notes"
    assert kinds["issue.md!/rank1.log"] == "pytorch"
    assert kinds["issue.md!/pip-list.txt"] == "pip-list"
    cap = next(c for c in bundle.facts.package_captures if c.tool == "pip-list")
    assert cap.packages["torch"] == "2.1.0"
    assert cap.lines["torch"] == _line_of(BODY, "torch      2.1.0")  # the body's line
    timeouts = {(w.evidence.file, w.evidence.line, w.rank) for w in bundle.facts.watchdog_timeouts}
    assert ("issue.md!/rank1.log", _line_of(BODY, "Watchdog"), 1) in timeouts
    reasons = " ".join(s.reason for s in bundle.facts.skipped)
    assert "image(s) on line(s) 5" in reasons and "link(s) on line(s) 5" in reasons


def test_diagnose_cites_the_body_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = (
        "# Training hangs when saving after validation\n\nOnly rank 1 is alive.\n\n"
        f"```\n{WATCHDOG}\n```\n\nMy save code:\n\n```python\ndef main():\n"
        "    for epoch in range(10):\n        if accelerator.is_main_process:\n"
        "            accelerator.wait_for_everyone()\n            model.save_pretrained('o')\n```\n"
    )
    (tmp_path / "issue.md").write_text(body, encoding="utf-8")
    main(["diagnose", "-e", str(tmp_path / "issue.md"), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    best = data["matches"][0]
    assert best["id"] == "eval-save-collective-deadlock"
    cited = {(e["file"], e["line"]) for e in best["evidence"]}
    assert ("issue.md!/lines-6-6.txt", _line_of(body, "Watchdog")) in cited
    assert ("issue.md!/lines-12-16.txt", _line_of(body, "wait_for_everyone")) in cited


def test_stdin_body_is_split_and_a_plain_log_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    for text, expected in ((BODY, "pytorch"), (WATCHDOG + "\n", None)):
        fake = io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8")
        monkeypatch.setattr(sys, "stdin", fake)
        kinds = _files(read_evidence("-"))
        if expected:
            assert kinds["<stdin>!/rank1.log"] == expected and kinds["<stdin>"] == "notes"
        else:
            assert list(kinds) == ["<stdin>"]  # read as the log it is


ISSUE = {
    "number": 7,
    "title": "训练在保存时卡住",
    "body": f"It hangs.\n\n```\n{WATCHDOG}\n```\n",
    "user": {"login": "reporter"},
    "comments": [
        {"body": f"Same here\n```\n{WATCHDOG}\n```", "user": {"login": "someone-else"}},
        {"body": f"{TRIAGE_MARKER}\nkb's own answer", "user": {"login": "github-actions[bot]"}},
        {"body": "pip list:\n```\n" + PIP + "```", "user": {"login": "reporter"}},
    ],
}


@pytest.mark.parametrize(
    "shape",
    [ISSUE, {"action": "opened", "issue": ISSUE}],
    ids=["issue", "event"],
)
def test_issue_json_reads_title_body_and_reporter_comments(tmp_path: Path, shape: object) -> None:
    path = tmp_path / "anything"  # found by content, not by name
    path.write_text(json.dumps(shape), encoding="utf-8")
    kinds = _files(read_evidence(path))
    assert kinds == {
        "anything!/title.md": "notes",
        "anything!/body.md": "notes",
        "anything!/body/lines-4-4.txt": "pytorch",
        "anything!/comment-3.md": "notes",
        "anything!/comment-3/pip-list.txt": "pip-list",
    }
    issue = parse_issue(shape)
    assert issue is not None and issue.triaged and issue.comments_seen == 3


def test_comment_list_and_json_that_is_no_issue(tmp_path: Path) -> None:
    comments = tmp_path / "comments.json"
    comments.write_text(json.dumps(ISSUE["comments"]), encoding="utf-8")
    assert "comments.json!/comment-1/lines-3-3.txt" in _files(read_evidence(comments))
    other = tmp_path / "config.json"
    other.write_text(json.dumps({"body": "x", "train_batch_size": 8}), encoding="utf-8")
    assert list(_files(read_evidence(other))) == ["config.json"]  # not an issue: as before


def test_a_folder_is_not_split(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text(BODY, encoding="utf-8")
    assert list(_files(read_evidence(tmp_path))) == ["notes.md"]


def test_many_blocks_are_bounded_parts(tmp_path: Path) -> None:
    """A body of thousands of pasted blocks: at most MAX_PARTS files of their own, the rest
    read together as one log, every line still at its body number."""
    from kb.evidence.issue_tasks import MAX_PARTS

    body = "It hangs.\n" + "".join(f"```\nNCCL WARN block {n}\n```\n" for n in range(3000))
    path = tmp_path / "issue.md"
    path.write_text(body, encoding="utf-8")
    bundle = read_evidence(path)
    files = bundle.facts.files
    assert len(files) == MAX_PARTS + 2  # the prose, MAX_PARTS blocks, the rest together
    last = files[-1]
    assert last.path == f"issue.md!/lines-{3 + 3 * MAX_PARTS}-{3 * 3000}.txt"
    assert last.lines == 3 * 3000


def test_deep_quotes_and_an_endless_comment_are_bounded() -> None:
    body = "> " * 500 + "NCCL WARN deep\n<!-- never closed\n" + "x\n" * 1000
    s = split_body(body)
    assert s.line_count == 1002 and not [no for no in s.prose if no > 1]


def test_export_still_ships_a_fenced_line_as_pasted(tmp_path: Path) -> None:
    """`kb export jsonl -e issue.md` walks the file itself: its fenced lines stay `pasted`."""
    from kb.export.shipper import records

    path = tmp_path / "issue.md"
    path.write_text(BODY, encoding="utf-8")
    kinds = {(r["line_number"], r["kind"]) for r in records(path, "job")}
    assert (_line_of(BODY, "Watchdog"), "pasted") in kinds
    assert (_line_of(BODY, "Training hangs"), "notes") in kinds
