"""Lines pasted from `grep -H` keep the rank their path names (issue 24, item 5), as if the
file in the prefix had been handed over."""

from __future__ import annotations

from kb.evidence.reader import read_evidence

GREP = """\
logs/rank3.log:1234:RuntimeError: NCCL communicator was aborted.
node1/worker-5.log: host-b:4711:4790 [1] NCCL WARN NET/IB : Got completion from peer with error 12
logs/rank0.log:88:[rank0]: RuntimeError: the rank the prefix names wins
"""


def test_grep_prefixes_give_each_line_its_rank(tree) -> None:  # type: ignore[no-untyped-def]
    facts = read_evidence(tree({"grep-errors.txt": GREP})).facts
    got = sorted((ev.line, ev.rank) for ev in facts.suspicious)
    assert got == [(1, 3), (2, 5), (3, 0)]
    (f,) = facts.files
    assert f.rank is None  # a paste of several ranks' lines is no one rank's file
    assert facts.ranks == [0, 3, 5]


def test_a_single_ranks_grep_paste_is_that_ranks_file(tree) -> None:  # type: ignore[no-untyped-def]
    text = "logs/rank7.log:10:RuntimeError: boom\nlogs/rank7.log:11:ValueError: bad value\n"
    facts = read_evidence(tree({"paste.txt": text})).facts
    assert facts.files[0].rank == 7
    assert {ev.rank for ev in facts.suspicious} == {7}


def test_a_sentence_naming_a_log_is_no_prefix(tree) -> None:  # type: ignore[no-untyped-def]
    text = "see train.log: RuntimeError: boom\n"
    facts = read_evidence(tree({"console.log": text})).facts
    assert [ev.rank for ev in facts.suspicious] == [None]
