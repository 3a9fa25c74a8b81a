"""A mixed evidence folder: every file classified, every rank attributed, patterns counted."""

from __future__ import annotations

import dataclasses
import json

import evidence_samples as S
import pytest

from kb.cli.main import main
from kb.evidence.reader import LogPattern, read_evidence
from kb.evidence.summary import render_summary

MIXED = {
    "README.md": S.NOTES,
    "env/pip_freeze.txt": S.PIP_FREEZE,
    "env/accelerate_env.txt": S.ACCELERATE_ENV,
    "env/nvidia-smi.txt": S.NVIDIA_SMI,
    "env/topo.txt": S.TOPO,
    "env/env.txt": S.ENV_EXPORT,
    "config/default_config.yaml": S.ACCELERATE_CONFIG,
    "src/train.py": S.TRAIN_PY,
    "logs/rank_0.log": S.WATCHDOG_RANK3.replace("rank3", "rank0").replace("Rank 3", "Rank 0"),
    "logs/rank-1/nccl.txt": S.NCCL_RANK1,
    "logs/console.log": S.INTERLEAVED,
    "node1/run_ab12/attempt_0/0/stdout.log": "step 3 loss 1.0\n",
    "node1/run_ab12/attempt_0/1/stdout.log": "step 2 loss 1.1\n",
    "ascend/log/debug/device-1/plog-2111667_20251024.log": S.PLOG_DEVICE1,
    "dumps/worker-2.txt": S.PYSPY,
}

EXPECTED = {
    "README.md": ("notes", None),
    "ascend/log/debug/device-1/plog-2111667_20251024.log": ("plog", 1),
    "config/default_config.yaml": ("accelerate-config", None),
    "dumps/worker-2.txt": ("stack-dump", 2),
    "env/accelerate_env.txt": ("accelerate-env", None),
    "env/env.txt": ("env-dump", None),
    "env/nvidia-smi.txt": ("nvidia-smi", None),
    "env/pip_freeze.txt": ("pip-freeze", None),
    "env/topo.txt": ("nvidia-topo", None),
    "logs/console.log": ("pytorch", None),
    "logs/rank-1/nccl.txt": ("nccl", 1),
    "logs/rank_0.log": ("pytorch", 0),
    "node1/run_ab12/attempt_0/0/stdout.log": ("text-log", 2),  # node 1 x 2 local ranks + 0
    "node1/run_ab12/attempt_0/1/stdout.log": ("text-log", 3),
    "src/train.py": ("python-source", None),
}


@pytest.fixture
def mixed(tree):  # type: ignore[no-untyped-def]
    return tree(MIXED)


def test_mixed_folder(mixed) -> None:  # type: ignore[no-untyped-def]
    bundle = read_evidence(mixed)
    f = bundle.facts
    assert f.skipped == []
    assert {x.path: (x.kind, x.rank) for x in f.files} == EXPECTED
    assert f.ranks == [0, 1, 2, 3]
    assert f.world_size == 2
    assert f.accelerate_config["distributed_type"] == "MULTI_NPU"  # the YAML beats accelerate env
    assert f.topology is not None and f.topology.links["GPU1,GPU0"] == "PHB"
    # accelerate 1.0.1 twice and torch 2.1.0 vs 2.1.0+cu121 are agreements, not conflicts
    assert f.conflicts == []
    assert len(f.source_findings) == 4 and len(f.notes) == 2
    assert f.last_progress[2].file == "node1/run_ab12/attempt_0/0/stdout.log"


def test_patterns_hit_in_same_pass(mixed) -> None:  # type: ignore[no-untyped-def]
    pats = [
        LogPattern("watchdog", r"Watchdog caught collective operation timeout"),
        LogPattern("ei", r"\bEI000[0-9]\b"),
        LogPattern("p2p-off", r"nccl_p2p_disable", ignore_case=True),
        LogPattern("never", r"this text is nowhere"),
    ]
    bundle = read_evidence(mixed, pats)
    h = bundle.hits
    assert h["watchdog"].counts == {"logs/rank_0.log": {0: 1}}
    assert h["ei"].counts == {"ascend/log/debug/device-1/plog-2111667_20251024.log": {1: 1}}
    # case patterns also see whole-file sources (the env dump) and NCCL's env echo
    assert h["p2p-off"].counts == {"env/env.txt": {-1: 1}, "logs/rank-1/nccl.txt": {1: 1}}
    assert "never" not in h
    assert h["watchdog"].lines[0].line == 1 and h["watchdog"].lines[0].source == "case"


def test_bad_pattern_is_a_value_error(mixed) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="'bad'"):
        read_evidence(mixed, [LogPattern("bad", r"(a")])


def test_parallel_equals_serial(mixed) -> None:  # type: ignore[no-untyped-def]
    serial = read_evidence(mixed, [LogPattern("w", "Watchdog")], workers=1)
    parallel = read_evidence(mixed, [LogPattern("w", "Watchdog")], workers=2)
    assert dataclasses.asdict(parallel) == dataclasses.asdict(serial)


def test_summary_and_cli(mixed, capsys) -> None:  # type: ignore[no-untyped-def]
    text = render_summary(read_evidence(mixed))
    for needle in ("pytorch:", "rank 0: broadcast seq 78", "accelerate 1.0.1", "NCCL_P2P_DISABLE=1",
                   "2 x NVIDIA GeForce RTX 4090 (gpu, env/nvidia-smi.txt)", "GPU0 GPU1:PHB", "collective-in-main-only-branch",
                   "rank 2 pid 4711 MainThread (idle): all_reduce", "Training hangs"):  # fmt: skip
        assert needle in text, needle
    assert main(["evidence", str(mixed)]) == 0
    assert "Files (15):" in capsys.readouterr().out
    assert main(["evidence", "--format", "json", str(mixed)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["facts"]["files"]) == 15
    assert main(["evidence", str(mixed / "missing")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_cli_reports_skipped(tree, capsys) -> None:  # type: ignore[no-untyped-def]
    root = tree({"a.bin": b"\x00\x01", "b.log": "ok\n"})
    assert main(["evidence", str(root)]) == 0
    out = capsys.readouterr().out
    assert "Skipped (1):" in out and "a.bin: binary" in out
