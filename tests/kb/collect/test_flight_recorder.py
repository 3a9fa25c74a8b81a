"""Flight Recorder dumps: the per-rank pickles PyTorch writes on a watchdog timeout, read
without `pickle.load` into the per-rank collective facts the cross-rank checks use. The
fixtures were written by PyTorch's own writer (see fixtures/flight-recorder/README.md)."""

from __future__ import annotations

import json
import pickle
import shutil
import subprocess
from pathlib import Path

import pytest
from launch_fakes import KB, REPO

from kb.evidence.reader import read_evidence
from kb.evidence.sources.flight_recorder import DumpError, load_dump, op_name

FIXTURES = Path(__file__).parent / "fixtures" / "flight-recorder"


def _diagnose(folder: Path) -> str:
    proc = subprocess.run([*KB, "diagnose", "--evidence", str(folder)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    return proc.stdout


def test_dumps_become_per_rank_collectives() -> None:
    facts = read_evidence(FIXTURES / "op-mismatch-2rank").facts
    assert [(f.path, f.kind, f.rank) for f in facts.files] == [
        ("nccl_trace_rank_0", "flight-recorder", 0), ("nccl_trace_rank_1", "flight-recorder", 1),
    ]  # fmt: skip
    by_rank: dict[int, list[tuple[str, int | None, int | None]]] = {}
    for op in facts.collectives:
        by_rank.setdefault(op.rank, []).append((op.op, op.seq, op.count))
    assert by_rank[0] == [("allreduce", 1, 32), ("allreduce", 2, 32), ("allreduce", 3, 32),
                          ("broadcast", 4, 16)]  # fmt: skip
    assert by_rank[1][-1] == ("allreduce", 4, 16)
    assert not facts.skipped


def test_an_op_mismatch_is_found_from_the_dumps_alone(tmp_path: Path) -> None:
    out = _diagnose(FIXTURES / "op-mismatch-2rank")
    # one fact (the dumps' comparison) and nothing independent: likely, and the report says why
    assert out.startswith("Most likely: collective-mismatch-across-ranks (likely")
    assert "level: likely, not confirmed: only `last_op_differs` shows it" in out
    assert "gloo:broadcast collective_seq_id=4" in out


def test_the_rank_that_did_not_arrive_shows_in_the_queue_positions() -> None:
    facts = read_evidence(FIXTURES / "rank0-one-extra-collective").facts
    assert {p.rank: p.last_enqueued for p in facts.queue_positions} == {0: 4, 1: 3}
    proc = subprocess.run([*KB, "diagnose", "--format", "json",
                           str(FIXTURES / "rank0-one-extra-collective")], cwd=REPO,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    report = json.loads(proc.stdout)
    (match,) = [m for m in report["matches"] + report["possible"]
                if m["id"] == "collective-mismatch-across-ranks"]  # fmt: skip
    assert "queue_positions_differ" in {e["query"] for e in match["evidence"]}


def test_matching_dumps_name_no_mismatch() -> None:
    assert "collective-mismatch-across-ranks" not in _diagnose(FIXTURES / "same-collectives-2rank")


def test_an_nccl_dump_in_the_documented_layout_is_read(tmp_path: Path) -> None:
    """Keys and values as FlightRecorderDetail.hpp writes them for ProcessGroupNCCL."""

    def entry(seq: int, name: str, size: int, state: str) -> dict[str, object]:
        return {"record_id": seq - 1, "pg_id": 0, "process_group": ("0", "default_pg"),
                "collective_seq_id": seq, "p2p_seq_id": 0, "op_id": seq,
                "profiling_name": name, "time_created_ns": 1, "input_sizes": [[size]],
                "input_dtypes": ["Float"], "output_sizes": [[size]], "output_dtypes": ["Float"],
                "state": state, "time_discovered_started_ns": None,
                "time_discovered_completed_ns": None, "retired": False, "timeout_ms": 600000,
                "is_p2p": False, "frames": [{"name": "all_reduce", "filename": "c10d.py",
                                             "line": 2050}]}  # fmt: skip

    for rank, last in ((0, "nccl:all_reduce"), (1, "nccl:all_reduce"), (2, "nccl:broadcast")):
        dump = {"version": "2.4", "pg_config": {"0": {"name": "0", "desc": "default_pg",
                                                      "ranks": "[0, 1, 2]"}},
                "pg_status": {"0": {"last_enqueued_collective": 8,
                                    "last_started_collective": 8,
                                    "last_completed_collective": 7}},
                "entries": [entry(7, "nccl:all_reduce", 1024, "completed"),
                            entry(8, last, 1024, "started")]}  # fmt: skip
        (tmp_path / f"nccl_trace_rank_{rank}").write_bytes(pickle.dumps(dump, protocol=2))
    out = _diagnose(tmp_path)
    assert out.startswith("Most likely: collective-mismatch-across-ranks")
    # the dumps are one fact: likely (the ladder), and the rank that differs is named
    assert out.splitlines()[0].startswith(
        "Most likely: collective-mismatch-across-ranks (likely, not yet proven, culprit"
    )
    assert "culprit rank: 2" in out


def _hostile(tmp_path: Path, data: bytes) -> str:
    (tmp_path / "nccl_trace_rank_0").write_bytes(data)
    facts = read_evidence(tmp_path).facts
    assert not facts.collectives and not facts.files
    (skip,) = facts.skipped
    return skip.reason


def test_a_dump_that_calls_code_is_refused_and_nothing_runs(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return (shutil.os.system, (f"touch {marker}",))  # type: ignore[attr-defined]

    reason = _hostile(tmp_path, pickle.dumps({"entries": [Evil()], "pg_config": {}}, protocol=2))
    assert "opcode" in reason and not marker.exists()


@pytest.mark.parametrize(
    "data",
    [
        b"\x80\x02}(X\x07\x00\x00\x00entries",  # cut short
        b"\x80\x02}(X\x07\x00\x00\x00entries\xff\xfe\xfd garbage pg_config",
        b"\x80\x02}(X\x07\x00\x00\x00entriesX\xff\xff\xff\x7fpg_config",  # a 2 GiB string
    ],
)
def test_corrupt_dumps_are_reported_not_raised(tmp_path: Path, data: bytes) -> None:
    assert _hostile(tmp_path, data).startswith("not a readable Flight Recorder dump")


def test_deep_cyclic_and_oversized_dumps_are_refused() -> None:
    deep: list[object] = []
    for _ in range(100):
        deep = [deep]
    with pytest.raises(DumpError, match="nests deeper"):
        load_dump(pickle.dumps({"entries": deep, "pg_config": {}}, protocol=2))
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(DumpError, match="nests deeper"):
        load_dump(pickle.dumps({"entries": loop}, protocol=2))
    with pytest.raises(DumpError, match="over 16 MiB"):
        load_dump(b"\x80\x02}" + b"\x00" * (17 << 20))
    with pytest.raises(DumpError, match="not a dict"):
        load_dump(pickle.dumps([1, 2], protocol=2))


def test_profiling_names() -> None:
    assert op_name("nccl:reduce_scatter_tensor_coalesced") == "reducescattertensor_coalesced"
    assert op_name("nccl:recv 1<-0") == "recv"
