"""The unvalidated fast paths build exactly what the validated constructors build."""

from __future__ import annotations

import pickle

from kb.evidence.context import FileContext, Line, evidence_line
from kb.evidence.facts import EvidenceLine
from kb.evidence.limits import Limits
from kb.evidence.ranks import PathHints


def test_evidence_line_equals_validated() -> None:
    fast = evidence_line("a/b.log", 3, None, "x", None, "case")
    slow = EvidenceLine(file="a/b.log", line=3, rank=None, text="x", timestamp=None, source="case")
    assert fast == slow
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.model_dump_json() == slow.model_dump_json()
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


def test_evidence_line_pickles_with_its_fields_set() -> None:
    partial = EvidenceLine(file="f", line=1, text="t")
    back = pickle.loads(pickle.dumps(partial))
    assert back == partial and back.model_fields_set == partial.model_fields_set
    full = evidence_line("f", 1, 2, "t", "ts", "nccl")
    back = pickle.loads(pickle.dumps([full, full]))
    assert back[0] == full and back[0] is back[1]
    assert back[0].model_fields_set == full.model_fields_set


def test_progress_matcher_agrees_with_python_re() -> None:
    import re

    from kb.evidence.filereader import _progress_matcher
    from kb.evidence.sources.text_log import TextLogSource

    slow = re.compile(TextLogSource.patterns["progress"][0], re.IGNORECASE)
    fast = _progress_matcher()
    for text in [
        "Training:   0%|▍        | 0/1000 [00:00<12:31, 2.43it/s]", "ſtep 5", "éstep 5",
        "step ٣", "İteration 3", "Epoch: 4", "xstep 1", "_step 1", "step\u00a0=1", "no bar",
        "\ufffd 3/10 [00:01", "STEP=7",
    ]:  # fmt: skip
        assert fast(text) == bool(slow.search(text)), text
