"""What users paste into their own words: fenced logs and code count, prose does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.cli.main import main
from kb.evidence.sources.python_source import parse_snippet

NOTES = """# Training hangs when saving after validation

Only rank 1 is alive after 30 minutes. There is no linkdown in the syslog.

```
[rank1]:[E1103 06:18:03.551201887 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=20811, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800049 milliseconds before timing out.
```

My save code:

```python
def main()
    ......
    for epoch in range(10):
        ... ...
        if accelerator.is_main_process:
            accelerator.wait_for_everyone()
            model.save_pretrained("out")
```
"""


def test_snippet_with_gaps_and_a_lost_colon_parses() -> None:
    tree, error = parse_snippet(
        "def main()\n  ......\n    x = 1\n    for a in b:\n"
        "        ... ...\n    if rank == 0:\n        dist.barrier()\n"
    )
    assert tree is not None, error


def test_fenced_log_and_code_in_notes_are_evidence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.md").write_text(NOTES, encoding="utf-8")
    assert main(["diagnose", "--evidence", str(tmp_path), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    best = data["matches"][0]
    assert best["id"] == "eval-save-collective-deadlock"
    shown = {(e["query"], e["line"]) for e in best["evidence"]}
    assert ("watchdog_timeout", 6) in shown  # the fenced log line
    assert ("main_only_collective", 17) in shown  # the pasted code, at its line in notes.md
    assert not any(q == "eval_context" and n == 18 for q, n in shown)  # code is not a log


def test_prose_in_notes_is_not_a_log_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.md").write_text(
        "It hangs at evaluation. I checked: no Watchdog caught collective operation timeout "
        "was printed, and there is no linkdown.\n",
        encoding="utf-8",
    )
    main(["diagnose", "--evidence", str(tmp_path), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    # the user's sentence may make the case likely, but it is never proof: the quoted
    # message is not a watchdog line, so nothing is confirmed and no log query holds
    verdicts = data["matches"] + data["possible"]
    assert all(m["level"] != "confirmed" for m in verdicts)
    log_queries = {"watchdog_timeout", "link_down", "link_flap", "peer_watchdog"}
    assert not [e for m in verdicts for e in m["evidence"] if e["query"] in log_queries]


@pytest.mark.parametrize(
    "quoted",
    [
        '"{line}"',  # straight double quotes
        "\u201c{line}\u201d",  # curly quotes, as word processors and chat apps write them
        "\u300c{line}\u300d",  # CJK corner brackets
        "\n> {line}\n",  # a Markdown block quote
    ],
)
def test_a_message_quoted_in_any_style_is_tool_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], quoted: str
) -> None:
    line = (
        "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=20811, "
        "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800049 "
        "milliseconds before timing out."
    )
    (tmp_path / "notes.md").write_text(
        "Training hangs at the save after evaluation, then it prints "
        + quoted.format(line=line)
        + " and dies.\n",
        encoding="utf-8",
    )
    main(["diagnose", "--evidence", str(tmp_path), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    shown = {e["query"] for m in data["matches"] + data["possible"] for e in m["evidence"]}
    assert "watchdog_timeout" in shown
