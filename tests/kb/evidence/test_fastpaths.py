"""The fast paths (positional constructors, tuple pickling, raw-byte rank lookups) build
exactly what the plain constructors and the full line attribution build."""

from __future__ import annotations

import pickle

from kb.evidence.context import FileContext, Line, evidence_line
from kb.evidence.facts import CollectiveOp, EvidenceLine, dump_json
from kb.evidence.limits import Limits
from kb.evidence.ranks import PathHints


def test_evidence_line_equals_keyword_built() -> None:
    fast = evidence_line("a/b.log", 3, None, "x", None, "case")
    slow = EvidenceLine(file="a/b.log", line=3, rank=None, text="x", timestamp=None, source="case")
    assert fast == slow
    assert dump_json(fast) == dump_json(slow)
    assert pickle.loads(pickle.dumps(fast)) == slow
    fast.rank = 2
    assert fast.rank == 2 and slow.rank is None


def test_line_fast_paths_keep_attribution() -> None:
    ctx = FileContext("x.log", PathHints(), Limits())
    assert ctx.line(1, b"[default1]:[rank3]: boom 2025-03-12 10:01:02\r\n").rank == 3
    plain = ctx.line(2, "no prefix, [Rank 5] in the message")
    assert (plain.rank, plain.body, plain.timestamp) == (5, plain.text, None)
    dev = ctx.line(3, "Entry-HcclAllReduce:tag[x], deviceLogicId[1]")
    assert (dev.rank, dev.explicit_rank) == (1, False)
    assert isinstance(dev, Line) and "deviceLogicId" in repr(dev)
    assert ctx.line(4, b"h:4711:4801 [0] NCCL INFO x").pid == 4711
    assert ctx.line(5, b"").rank is None
    assert dict(ctx.line_ranks) == {3: 1, 5: 1}


def test_evidence_and_ops_pickle_as_values_and_keep_sharing() -> None:
    partial = EvidenceLine(file="f", line=1, text="t")
    assert pickle.loads(pickle.dumps(partial)) == partial
    full = evidence_line("f", 1, 2, "t", "ts", "nccl")
    back = pickle.loads(pickle.dumps([full, full]))
    assert back[0] == full and back[0] is back[1]
    op = CollectiveOp(rank=2, op="allreduce", seq=7, count=1024, dtype="float32", evidence=full)
    again = pickle.loads(pickle.dumps(op))
    assert again == op and again.evidence == full


def test_rank_of_agrees_with_line_attribution() -> None:
    lines = [
        b"h:4711:4801 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM",
        b"[default1]:[rank3]: RuntimeError: boom", b"[Rank 5] Watchdog caught", b"plain line",
        b"[2025-03-12 10:01:02] no rank here", b"(Worker pid=9) x", b"deviceLogicId[4] entry",
        b"[default3]:{'loss': 1.2} step=4", b"[RANK2]: upper-case prefix", b"[default1]:[rank6]: x",
        b"(Worker pid=9) h:9:1 [0] NCCL INFO comm 0x1 rank 3 nranks 8", b"RankID:4 ERR02200",
    ]  # fmt: skip
    for file_rank in (None, 2):
        fast = FileContext("x.log", PathHints(), Limits(), file_rank=file_rank)
        slow = FileContext("x.log", PathHints(), Limits(), file_rank=file_rank)
        for no, raw in enumerate(lines, start=1):
            assert fast.rank_of(no, raw) == slow.line(no, raw).rank, (file_rank, raw)
            text = raw.decode()
            if fast.only_file_rank(text):  # the test _last_per_rank makes on decoded tails
                assert slow.line(no + 100, text).rank == file_rank, raw


PREFIXED = [
    b"[rank3]:[default3]:{'loss': 1.2} step=4", b"[rank3]:[rank4]: the last prefix wins",
    b"[rank12]: says [RANK4] later", b"[rank03]:(Worker pid=9) h:9:1 [0] NCCL INFO x",
    b"[rank1]: \xff\xfe not utf-8", b"[rank1]:\xc2\xa0[rank5]: x", b"[rank7]:", b"[rank7]:\r",
    b"[rank1]:a.log:3: x", b"[rank2]: [Rank 5] Watchdog caught", b"[rank1234567890]: x",
    b"[rank5]:[default1]: RankID:4", b"[rank0]: deviceLogicId[4] entry", b"[ranks3]: x",
]  # fmt: skip


def test_a_rank_read_from_the_prefix_is_the_decoded_lines_rank_counted_once() -> None:
    """rank_of, then line, on the same and on later lines: the same lines, ranks and counts
    as line alone (a later source may still decode a line whose rank was read raw)."""
    for file_rank in (None, 2):
        fast = FileContext("x.log", PathHints(), Limits(), file_rank=file_rank)
        slow = FileContext("x.log", PathHints(), Limits(), file_rank=file_rank)
        for no, raw in enumerate(PREFIXED * 2, start=1):
            assert fast.rank_of(no, raw) == fast.rank_of(no, raw) == slow.line(no, raw).rank
            if no % 3:  # some lines are decoded after their rank was read, some never
                assert repr(fast.line(no, raw)) == repr(slow.line(no, raw)), raw
        assert fast.line_ranks == slow.line_ranks, file_rank
        assert fast.line_ranks[3] and fast.line_ranks[7]  # ranks read from the prefix alone


def test_a_console_lines_rank_is_read_without_decoding_it(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The lines a case pattern only counts, past its first ones, in a console of many
    ranks: decoding each was most of the Python time of the console's first blocks."""
    import kb.evidence.context as context

    def no_decoding(text: str) -> None:
        raise AssertionError(f"decoded {text!r}")

    monkeypatch.setattr(context, "strip_prefixes", no_decoding)
    ctx = FileContext("console.log", PathHints(), Limits())
    assert ctx.rank_of(1, b"[rank3]:[default3]:{'loss': 1.25} step=7") == 3
    assert ctx.line_ranks == {3: 1}


def test_progress_matcher_agrees_with_python_re() -> None:
    import re

    from kb.evidence.progress import _progress_matcher
    from kb.evidence.sources.text_log import TextLogSource

    slow = re.compile(TextLogSource.patterns["progress"][0], re.IGNORECASE)
    fast = _progress_matcher()
    for text in [
        "Training:   0%|▍        | 0/1000 [00:00<12:31, 2.43it/s]", "ſtep 5", "éstep 5",
        "step ٣", "İteration 3", "Epoch: 4", "xstep 1", "_step 1", "step\u00a0=1", "no bar",
        "\ufffd 3/10 [00:01", "STEP=7", "loss 3 | 10/100 [00:01<00:09", "Epoch=2",
        "ITERATION: 5", "iter 7", "12%|##", "a/b path", "steps 4", "x 3/4 [1", "EPOCH 9 done",
    ]:  # fmt: skip
        assert fast(text) == bool(slow.search(text)), text


def test_tail_progress_first_window_gives_the_full_window_answer(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from kb.evidence import progress
    from kb.evidence.reader import read_evidence

    pad = "x" * 40

    def text(dense_from: int) -> str:  # ~360 KiB: more than the first window
        return "".join(
            f"[rank{i % 3}]: step {i} loss 0.1 {pad}\n" if i % 7 == 0 or i > dense_from
            else f"log {i} {pad}\n"
            for i in range(6000)
        )  # fmt: skip

    (tmp_path / "dense.log").write_text(text(3000))  # the first 128 KiB are enough
    (tmp_path / "sparse.log").write_text(text(6000))  # they are not: the whole MiB is read

    def last() -> dict[int, tuple[int, str]]:
        facts = read_evidence(tmp_path, workers=1).facts
        return {r: (ev.line, ev.text) for r, ev in facts.last_progress.items()}

    windowed = last()
    monkeypatch.setattr(progress, "TAIL_FIRST", progress.TAIL_BYTES)
    assert windowed == last() and windowed


def test_suspicious_lines_keep_both_ends_of_a_noisy_log() -> None:
    """Past the cap, the first half and the last lines are kept: the fatal error at the
    end of a log full of warnings must not be lost."""
    ctx = FileContext("x.log", PathHints(), Limits(suspicious_per_file=10))
    for no in range(1, 101):
        ctx.suspicious(ctx.line(no, f"WARNING step {no}"), "text-log")
    ctx.suspicious(ctx.line(100, "WARNING step 100"), "text-log")  # a second source, same line
    ctx.finish_lines()
    assert [e.line for e in ctx.facts.suspicious] == [1, 2, 3, 4, 5, 96, 97, 98, 99, 100]


def test_summary_lists_the_first_watchdog_timeout_of_each_rank() -> None:
    from kb.evidence.facts import Facts, WatchdogTimeout
    from kb.evidence.reader import EvidenceBundle
    from kb.evidence.summary import render_summary

    def wd(rank: int, seq: int) -> WatchdogTimeout:
        ev = evidence_line(f"rank_{rank}.log", seq, rank, "Watchdog caught", None, "pytorch")
        return WatchdogTimeout(rank=rank, op="allreduce", seq=seq, timeout_ms=600000, evidence=ev)

    facts = Facts(watchdog_timeouts=[wd(1, 7), wd(0, 5), wd(1, 8), wd(1, 9)])
    text = render_summary(EvidenceBundle(root="x", facts=facts))
    lines = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("rank ")]
    assert lines[0].startswith("rank 0: allreduce seq 5") and not lines[0].endswith("more)")
    assert lines[1].startswith("rank 1: allreduce seq 7") and lines[1].endswith("(+2 more)")
    assert len(lines) == 2


def test_a_count_stops_at_enough_only_in_a_one_rank_file(tmp_path: object) -> None:
    """Past `enough` hits in a file that is one rank's, the count stops (a lower bound, the
    file listed as saturated); a console holding several ranks is counted in full."""
    from pathlib import Path

    from kb.evidence.reader import LogPattern, read_evidence

    assert isinstance(tmp_path, Path)
    (tmp_path / "rank_3.log").write_text("".join(f"step {i} loss 0.5\n" for i in range(5000)))
    (tmp_path / "console.log").write_text(
        "".join(f"[rank{i % 2}]: step {i} loss 0.5\n" for i in range(5000))
    )
    pats = [LogPattern("loss", r"loss \d", enough=100), LogPattern("all", r"loss \d")]
    hits = read_evidence(tmp_path, pats, workers=1).hits
    one = hits["loss"].counts["rank_3.log"][3]
    assert 100 <= one < 5000 and hits["loss"].saturated == ["rank_3.log"]
    assert hits["loss"].counts["console.log"] == {0: 2500, 1: 2500}
    assert hits["all"].counts["rank_3.log"] == {3: 5000} and hits["all"].saturated == []


def test_hits_counted_by_the_scanner_equal_hits_counted_line_by_line(tmp_path: object) -> None:
    """Once a pattern's first lines are in, the hits of a one-rank file are counted by the
    scanner's `Tally`: the counts, the first and last lines, and the lines naming another rank
    must be what reading each line gives."""
    from pathlib import Path

    from kb.evidence.reader import LogPattern, read_evidence

    assert isinstance(tmp_path, Path)
    text = [f"[Rank 5] step {i} loss 0.1" if i % 97 == 0 else f"step {i} loss 0.{i % 10}"
            for i in range(3000)]  # fmt: skip
    text[2990] = "step 2990 loss 0.0 " + "x" * 70000  # a line longer than the cut
    (tmp_path / "rank_3.log").write_text("\n".join(text) + "\n")
    (tmp_path / "all.log").write_text("".join(f"[rank3]: {t}\n" for t in text))
    hits = read_evidence(tmp_path, [LogPattern("loss", r"loss \d")], workers=1).hits["loss"]
    other = sum(1 for i in range(3000) if i % 97 == 0)
    assert hits.counts["rank_3.log"] == {3: 3000 - other, 5: other}
    cap = Limits().hits_per_file
    by_file = {
        f: [(h.line, h.rank, h.text[:40]) for h in hits.lines if h.file == f]
        for f in ("rank_3.log", "all.log")
    }
    wanted = [*range(1, cap - cap // 2 + 1), *range(3000 - cap // 2 + 1, 3001)]
    assert [no for no, _, _ in by_file["rank_3.log"]] == wanted
    assert [t for _, _, t in by_file["rank_3.log"]] == [text[no - 1][:40] for no in wanted]
    assert [r for _, r, _ in by_file["rank_3.log"]] == [
        5 if (no - 1) % 97 == 0 else 3 for no in wanted
    ]
    # all.log names a rank on every line, so nothing is counted without looking at it
    assert hits.counts["all.log"] == {3: 3000}
    assert [no for no, _, _ in by_file["all.log"]] == wanted


def test_scanner_tail_and_line_tail_merge_without_repeats(tmp_path: object) -> None:
    """The last lines come from both the scanner's tally and the lines that named a rank."""
    from pathlib import Path

    from kb.evidence.reader import LogPattern, read_evidence

    assert isinstance(tmp_path, Path)
    head = Limits().hits_per_file - Limits().hits_per_file // 2
    for total in (head + 15, 300):  # a tail shorter than its cap, and a full one
        text = [f"step {i} loss 0.5" for i in range(total)]
        text[total - 10] = text[total - 5] = "[Rank 6] step loss 0.5"
        (tmp_path / "rank_4.log").write_text("\n".join(text) + "\n")
        hits = read_evidence(tmp_path, [LogPattern("loss", r"loss \d")], workers=1).hits["loss"]
        tail = [(h.line, h.rank) for h in hits.lines][head:]
        named = (total - 9, total - 4)
        first = max(head + 1, total - Limits().hits_per_file // 2 + 1)
        assert tail == [(no, 6 if no in named else 4) for no in range(first, total + 1)]
        assert hits.counts["rank_4.log"] == {4: total - 2, 6: 2}


SUSPICIOUS_ONLY_SAMPLES = {
    (
        "nccl",
        "warn",
    ): "node-a:4711:4790 [0] NCCL WARN NET/IB : Got completion from peer with error 12",
    (
        "nccl",
        "p2p",
    ): "node-a:4711:4711 [0] NCCL INFO P2P is disabled between connected GPUs 0 and 1",
    ("nccl", "error"): "node-a:4711:4711 [0] NCCL INFO init.cc:1234 -> 2 ncclSystemError",
    ("plog", "ei"): "EI0002: [PID: 2111667] The wait execution of the Notify register times out.",
    (
        "plog",
        "err",
    ): "[ERROR] 2025-10-24-11:18:31 (PID:2111667, Device:1) ERR02200 DIST call failed.",
    ("plog", "heartbeat"): "[ERROR] HCCL(1,python):2025-10-24 [hb.cc:9] Cluster Exception Location",
    (
        "plog",
        "plog_error",
    ): "[ERROR] RUNTIME(2111667,python):2025-10-24-11:18:29.597.044 [x.cc:1] fail",
    ("pytorch", "pg_status"): "[E1012 ProcessGroupNCCL.cpp:1600] failure detected by watchdog at "
    "work sequence id: 78 PG status: last enqueued work: 78, last completed work: 77",
    ("pytorch", "errors"): "torch.distributed.DistBackendError: NCCL error in: ../nccl.cpp:1970",
    ("text-log", "traceback"): "Traceback (most recent call last):",
    ("text-log", "error"): "RuntimeError: CUDA error: an illegal memory access was encountered",
    ("text-log", "oom"): "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    ("text-log", "signal"): "Fatal Python error: Segmentation fault",
    ("torchrun", "closing"): "W0709 17:06:00.000000 4700 torch/distributed/elastic/"
    "multiprocessing/api.py:897] Sending process 4711 closing signal SIGTERM",
}


def test_suspicious_only_keys_do_nothing_but_flag_the_line() -> None:
    """The reader may keep lines of `suspicious_keys` as bytes and never show them to the
    source, so `on_line` must do nothing else with them."""
    from kb.evidence.facts import dump_json
    from kb.evidence.registry import LINE_SOURCES

    declared = {(c.name, k) for c in LINE_SOURCES for k in c.suspicious_keys}
    assert declared == set(SUSPICIOUS_ONLY_SAMPLES)
    for cls in LINE_SOURCES:
        for key in cls.suspicious_keys:
            ctx = FileContext("x.log", PathHints(), Limits(), file_rank=0)
            src = cls(ctx)
            text = SUSPICIOUS_ONLY_SAMPLES[(cls.name, key)]
            src.on_line(key, ctx.line(7, text))
            src.finish()
            ctx.finish_lines()
            assert [(e.line, e.text) for e in ctx.facts.suspicious] == [(7, text)], (cls.name, key)
            ctx.facts.suspicious.clear()
            assert dump_json(ctx.facts) == dump_json(
                FileContext("y.log", PathHints(), Limits()).facts
            ), (cls.name, key)


def test_suspicious_lines_kept_as_bytes_equal_decoded_ones(tmp_path: object) -> None:
    """Past the first half of the cap, a one-rank file keeps its error lines as bytes; the
    lines shown must be those a file read line by line shows."""
    from pathlib import Path

    from kb.evidence.reader import read_evidence

    assert isinstance(tmp_path, Path)
    lines = []
    for i in range(1500):
        lines.append(f"step {i} ok")
        lines.append(f"h:1:2 [0] NCCL WARN NET/IB : Got completion with error {i}" if i % 3
                     else f"RuntimeError: boom {i}")  # fmt: skip
    lines.append("[Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, "
                 "OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600100 milliseconds")  # fmt: skip
    text = "\n".join(lines) + "\n"
    (tmp_path / "rank_2.log").write_text(text)  # a rank of its own: the raw path
    (tmp_path / "console.log").write_text(text)  # no rank: every line decoded
    facts = read_evidence(tmp_path, workers=1).facts
    by_file = {
        f: [(s.line, s.text, s.source, s.timestamp) for s in facts.suspicious if s.file == f]
        for f in ("rank_2.log", "console.log")
    }
    assert by_file["rank_2.log"] == by_file["console.log"]
    assert len(by_file["rank_2.log"]) == Limits().suspicious_per_file
    assert by_file["rank_2.log"][-1][0] == 3001
    ranks = [s.rank for s in facts.suspicious if s.file == "rank_2.log"]
    assert ranks == [2] * (len(ranks) - 1) + [5]
