"""Progress lines of a many-rank console are left to the engine once every rank in a block
has counted enough of them (kb.evidence.bulk), and the counts a verdict reads stay right:
exact for a rank that stopped, a lower bound past `enough` for the others."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kb.evidence import bulk, dispatch
from kb.evidence.bulk import block_ranks, mutable
from kb.evidence.reader import LogPattern, read_evidence

KEY = "progress"
ENOUGH = 50
STOPPED = 5  # the rank that stops printing early


def _console(path: Path) -> int:
    """A torchrun console of 8 ranks, about 3 MB (three scan blocks); rank 5 stops at step
    100. Returns how many lines rank 5 printed."""
    rows = []
    for step in range(1, 6001):
        for rank in range(8):
            if rank == STOPPED and step > 100:
                continue
            rows.append(f"[rank{rank}]:[default{rank}]:{{'loss': 1.25}} step={step} lr=3e-4\n")
    path.write_text("".join(rows))
    return 100


def _read(folder: Path) -> tuple[dict[int, int], list[str], list[tuple[int, int | None]]]:
    got = read_evidence(folder, [LogPattern(KEY, r"step=\d+", enough=ENOUGH)]).hits[KEY]
    (counts,) = got.counts.values()
    return counts, got.saturated, [(ln.line, ln.rank) for ln in got.lines]


def test_block_ranks_only_when_every_line_has_a_plain_rank_prefix() -> None:
    def ranks(data: bytes) -> set[int] | None:
        return block_ranks(bytearray(data), len(data))

    assert ranks(b"[rank1]:[default1]:{'loss': 1}\n[rank12]: step=3\n") == {1, 12}
    assert ranks(b"[rank1]: step=1\nstep=2 without a prefix\n") is None
    assert ranks(b"[rank1]:[rank5]: step=1\n") is None  # the last rank prefix wins
    assert ranks(b"[rank1]: [rank5]: step=1\n[rank1]:(pid=3) x\n") is None
    assert ranks(b"[rank1]:\xc2\xa0[rank5]: x\n") is None  # a space Python's \s would skip
    assert ranks(b"[rank2]: last line without newline") == {2}
    assert (
        ranks(b"[rank2]: a\n[Rank3]: b\n") is None
    )  # prefixes are matched as torchrun writes them
    assert ranks(b"[rank2]: a\n[rank3]: says [RANK4]: b\n") is None
    assert ranks(b"[rank0]:[default0]: a\n[rank1]:(Worker pid=7) b\n") == {0, 1}
    assert ranks(b"") is None


def test_mutable_needs_every_rank_of_the_block_past_enough() -> None:
    counts = {"a": {0: 60, 1: 60}, "b": {0: 60, 1: 3}}
    indexes = {"a": [4], "b": [7, 8]}
    assert mutable({0, 1}, counts, {"a": 50, "b": 50}, indexes) == ({4}, ["a"])
    assert mutable({0}, counts, {"a": 50, "b": 50}, indexes) == ({4, 7, 8}, ["a", "b"])
    assert mutable({2}, counts, {"a": 50}, indexes) == (set(), [])


def test_console_counts_stay_right_with_fewer_lines_handled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    printed = _console(tmp_path / "console.log")
    counts, saturated, lines = _read(tmp_path)
    monkeypatch.setattr(dispatch, "block_ranks", lambda *_args: None)  # as before bulk.py
    exact, _, exact_lines = _read(tmp_path)
    assert counts[STOPPED] == exact[STOPPED] == printed
    assert saturated == ["console.log"]
    for rank in set(range(8)) - {STOPPED}:
        assert ENOUGH <= counts[rank] <= exact[rank] == 6000
    assert sum(counts.values()) < sum(exact.values())  # later blocks were left to the engine
    assert lines[: len(lines) // 2] == exact_lines[: len(lines) // 2]  # the first lines kept


BLOCKS = [
    b"[rank1]:[default1]:{'loss': 1}\n[rank12]: step=3\n",
    b"[rank1]: step=1\nstep=2 without a prefix\n",
    b"[rank1]:[rank5]: step=1\n",
    b"[rank1]: a\n[rank2]: b [rank1]: c\n",
    b"[rank1]: a\n[rank2]: says [RANK4]: b\n",
    b"[rank1]: a\n[rank2]: says [rAnk4] [raNk4] [ranK4] [Rank4]: b\n",
    b"[rank2]: a\n[Rank3]: b\n",
    b"[rank2]: last line without newline",
    b"[rank2]: a\n[rank3]: last line without newline",
    b"[rank2]: a\n[rank01]: b\n",
    b"[rank01]: a\n[rank1]: b\n",
    b"[rank2]: a\n\n[rank3]: b\n",
    b"[rank2]: a\r\n[rank3]: b\r\n",
    b"[rank2]: a\n[rank3]:b\n[rank9]: a rank not counted yet\n",
    b"[rank0]:[default0]: a\n[rank1]:(Worker pid=7) b\n",
    b"[rank1234567890]: a\n[rank1]: b\n",
    b"[rank1]: a\n[rank1234567890]: b\n",
    b"[rank3]: x\n" * 50 + b"[rank4]: [rank",
]


@pytest.mark.parametrize("data", BLOCKS)
def test_block_ranks_from_the_ranks_counted_so_far_give_the_same_answer(data: bytes) -> None:
    """The fast answer (every line one of the ranks counted so far) is the line-by-line one."""
    buf = bytearray(data + b"tail of the next block")  # only buf[:end] is the block
    slow = block_ranks(buf, len(data))
    for known in ((), (1, 2, 3), range(13), (-1, 2, 3), (3, 1234567890)):
        assert block_ranks(buf, len(data), known) == slow


def test_a_block_of_counted_ranks_is_not_read_line_by_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """200 MB of a console held 1,400 such blocks; a Python object per line of each was a
    quarter of the time the scan took (issue 27)."""
    block = b"".join(
        b"[rank%d]:[default%d]:{'loss': 1.25} step=%d lr=3e-4\n" % (r, r, step)
        for step in range(1, 200)
        for r in range(8)
        if not (r == 5 and step > 100)
    )
    expected = block_ranks(bytearray(block), len(block))
    assert expected == set(range(8))

    class NoLineByLine:
        def findall(self, *_args: object) -> list[bytes]:
            raise AssertionError("read line by line")

    monkeypatch.setattr(bulk, "_NEXT", NoLineByLine())
    assert block_ranks(bytearray(block), len(block), range(8)) == expected
    assert block_ranks(bytearray(block), len(block), range(12)) == expected  # 8..11 absent


def test_block_ranks_agree_on_random_blocks() -> None:
    """Lines made of the pieces the two ways of answering look at, in random orders."""
    rng = random.Random(27)
    heads = [b"[rank%d]:" % r for r in (0, 1, 2, 7, 12)] + [
        b"[rank01]:", b"[Rank1]:", b"rank1:", b"", b"[rank1] ", b"\r", b"[rank99]:",
    ]  # fmt: skip
    bodies = [b" step=1", b" [rank2]: x", b" [RANK3]", b" [ranK", b" ok", b"", b" [rank"]
    for _ in range(3000):
        lines = [
            rng.choice(heads[:5] * 4 + heads[5:]) + rng.choice(bodies[4:] * 6 + bodies)
            for _ in range(rng.randint(1, 6))
        ]
        data = b"\n".join(lines) + rng.choice([b"\n", b""])
        buf = bytearray(data + b"[rank5]: beyond the block\n")
        slow = block_ranks(buf, len(data))
        for known in ((0, 1, 2, 7, 12), (0, 1), (1, 99, 12)):
            assert block_ranks(buf, len(data), known) == slow, data
