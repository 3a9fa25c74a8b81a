"""torchrun's ChildFailedError report read as structure: its borders stay lines of their own
(they are not a terminal's width), and its blocks become process failures."""

from __future__ import annotations

import json

import pytest
import torchrun_reports as R

from kb.cli.main import main
from kb.evidence.drawing import is_drawn
from kb.evidence.reader import read_evidence
from kb.evidence.summary import render_summary
from kb.evidence.unwrap import unwrap

BORDER, RULE = "=" * 60, "-" * 60


def _lines(text: str) -> list[str]:
    return text.split("\n")


def test_the_report_as_posted_is_left_as_it_is() -> None:
    # four 60-wide rules outnumber every other width: they were taken for the terminal's
    # and glued to the next line ("------…Root Cause (first observed failure):")
    data = R.MINIGPT4_237.read_bytes()
    assert unwrap(data) == data


def test_a_wrapped_line_next_to_a_border_is_still_joined() -> None:
    """The same report copied from an 80-column terminal: both `traceback` lines (90 wide)
    were cut at 80, and each is followed by a rule or a border."""
    text = R.MINIGPT4_237.read_text(encoding="utf-8")
    pasted = R.wrapped_at(text, 80)
    assert len(_lines(pasted)) == len(_lines(text)) + 2  # the two cut lines
    got = _lines(unwrap(pasted.encode()).decode())
    assert len(got) == len(_lines(pasted))  # numbering kept: the joined halves leave ""
    whole = (
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
    )
    at = [i for i, line in enumerate(got) if line == whole]
    assert len(at) == 2
    assert [got[i + 1] for i in at] == ["", ""]
    assert [got[i + 2] for i in at] == [RULE, BORDER]  # the border after it, untouched
    assert got.count(RULE) == 2 and got.count(BORDER) == 2
    assert "Failures:" in got and "Root Cause (first observed failure):" in got


def test_report_blocks_are_process_failures(tree) -> None:  # type: ignore[no-untyped-def]
    root = tree({"console.log": R.MINIGPT4_237.read_text(encoding="utf-8")})
    facts = read_evidence(root).facts
    got = [
        (p.rank, p.local_rank, p.exitcode, p.pid, p.root_cause, p.time, p.host, p.error_file)
        for p in facts.process_failures
    ]
    assert got == [
        (1, 1, 1, 78971, False, "2023-05-19_16:39:58", "n136-117-136.byted.org", None),
        (0, 0, 1, 78970, True, "2023-05-19_16:39:58", "n136-117-136.byted.org", None),
    ]
    hint = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
    assert [p.traceback for p in facts.process_failures] == [hint, hint]
    flagged = [s.text for s in facts.suspicious]
    assert "Failures:" in flagged and "Root Cause (first observed failure):" in flagged
    assert not [t for t in flagged if "---" in t or "===" in t]


def test_an_error_files_traceback_gives_the_exception(tree) -> None:  # type: ignore[no-untyped-def]
    bundle = read_evidence(tree({"console.log": R.TORCHFT_ERROR_FILE}))
    facts = bundle.facts
    (p,) = facts.process_failures
    assert (p.rank, p.exitcode, p.pid, p.root_cause) == (0, 1, 65111, True)
    assert p.error_file == "/tmp/torchelastic_sio2pi4d/none_cejtyodz/attempt_0/0/error.json"
    assert p.traceback is not None
    assert p.traceback.startswith(
        'RuntimeError: status: InvalidArgument, message: "rank not found"'
    )
    exception = next(s for s in facts.suspicious if "RuntimeError: status" in s.text)
    assert exception.rank == 0
    assert "rank 0 local 0 exit 1 [root cause]: RuntimeError: status" in render_summary(bundle)


def test_the_agents_line_takes_the_rank_of_the_block_with_its_pid(tree) -> None:  # type: ignore[no-untyped-def]
    agent = (
        "E0519 16:39:58.000000 78960 torch/distributed/elastic/multiprocessing/api.py:869] "
        "failed (exitcode: 1) local_rank: 0 (pid: 78970) of binary: /usr/bin/python\n"
    )
    text = agent + R.MINIGPT4_237.read_text(encoding="utf-8")
    facts = read_evidence(tree({"console.log": text})).facts
    first = facts.process_failures[0]
    assert (first.local_rank, first.pid, first.rank, first.host) == (
        0, 78970, 0, "n136-117-136.byted.org",
    )  # fmt: skip


def test_kb_evidence_json_shows_the_reports_fields(tree, capsys) -> None:  # type: ignore[no-untyped-def]
    root = tree({"console.log": R.MINIGPT4_237.read_text(encoding="utf-8")})
    assert main(["evidence", "--format", "json", str(root)]) == 0
    failures = json.loads(capsys.readouterr().out)["facts"]["process_failures"]
    root_cause = [f for f in failures if f["root_cause"]]
    assert [(f["rank"], f["time"], f["error_file"]) for f in root_cause] == [
        (0, "2023-05-19_16:39:58", None)
    ]
    assert root_cause[0]["evidence"]["line"] == 16  # its `time` line, numbering kept


@pytest.mark.parametrize(
    "fixture",
    [
        # rich's box-drawn traceback (`│ … │` rows at the console's width)
        "elastic-restart-hides-first-failure/fixtures/negative/"
        "gh-firefly-32-tokenizer-json-parse-then-childfailederror/console.log",
        # mpirun's message between two 74-dash rules
        "rank-segfault-tears-down-job/fixtures/positive/"
        "gh-horovod-1136-mpirun-rank1-signal-11-gcc/console.log",
        # show_gids' `---     ----    -----` header rule
        "roce-gid-index-wrong/fixtures/positive/"
        "gh-nccl-551-rdma-shared-docker-gid-table-starts-at-12/show_gids.txt",
    ],
)
def test_tables_and_rules_of_other_tools_are_not_glued(fixture: str) -> None:
    data = (R.ROOT / "cases" / fixture).read_bytes()
    before, after = data.split(b"\n"), unwrap(data).split(b"\n")
    drawn = [i for i, line in enumerate(before) if is_drawn(line)]
    assert drawn
    for i in drawn:
        assert after[i] == before[i]
        assert i + 1 == len(before) or after[i + 1] == before[i + 1]
