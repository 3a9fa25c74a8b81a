"""Each source on real-format samples: what it must extract, and what it must not."""

from __future__ import annotations

from pathlib import Path

import evidence_samples as S
import pytest

from kb.evidence.reader import read_evidence


def one(tree, name: str, content: str):  # type: ignore[no-untyped-def]
    root = tree({name: content})
    bundle = read_evidence(root)
    assert [s.reason for s in bundle.facts.skipped] == []
    return bundle.facts


@pytest.mark.parametrize(
    ("name", "content", "kind"),
    [
        ("out.txt", S.NCCL_RANK1, "nccl"),
        ("console.txt", S.WATCHDOG_RANK3, "pytorch"),
        ("agent.txt", S.TORCHRUN, "torchrun"),
        ("a.log", S.PLOG_DEVICE1, "plog"),
        ("reqs.txt", S.PIP_FREEZE, "pip-freeze"),
        ("a.txt", S.PIP_LIST, "pip-list"),
        ("b.txt", S.CONDA_LIST, "conda-list"),
        ("c.txt", S.ACCELERATE_ENV, "accelerate-env"),
        ("d.txt", S.COLLECT_ENV, "collect-env"),
        ("e.txt", S.NVIDIA_SMI, "nvidia-smi"),
        ("e2.txt", S.NVIDIA_SMI_L, "nvidia-smi"),
        ("e3.txt", S.NVIDIA_SMI_Q, "nvidia-smi"),
        ("f.txt", S.TOPO, "nvidia-topo"),
        ("g.txt", S.NPU_SMI, "npu-smi"),
        ("h.txt", S.ENV_EXPORT, "env-dump"),
        ("cfg.yaml", S.ACCELERATE_CONFIG, "accelerate-config"),
        ("dump.txt", S.PYSPY, "stack-dump"),
        ("crash.txt", S.FAULTHANDLER, "stack-dump"),
        ("train.py", S.TRAIN_PY, "python-source"),
        ("issue.md", S.NOTES, "notes"),
        # a one-line note that names a launcher or an Ascend log is still the user's words
        ("notes.md", "8x910B, torchrun --log-dir logs; ranks 1-7 hang, rank 0 fine.\n", "notes"),
        ("README.md", "Copied the plog: EI0006 on device 1, HCCL_ENTRY_LOG_ENABLE=1.\n", "notes"),
        ("misc.log", "hello world\nnothing to see\n", "text-log"),
        # what a project asks for is neither an installed set nor an environment
        (
            "requirements.txt",
            "# recipe\ntorch==2.1.0\naccelerate==0.28.0\npeft==0.10.0\n",
            "text-log",
        ),
    ],
)
def test_classified_by_content(tree, name: str, content: str, kind: str) -> None:  # type: ignore[no-untyped-def]
    facts = one(tree, name, content)
    assert [f.kind for f in facts.files] == [kind]


def test_content_beats_name(tree) -> None:  # type: ignore[no-untyped-def]
    # a pip freeze saved as "nvidia-smi.log" is still a pip freeze
    facts = one(tree, "nvidia-smi.log", S.PIP_FREEZE)
    assert facts.files[0].kind == "pip-freeze"


def test_nccl(tree) -> None:  # type: ignore[no-untyped-def]
    facts = one(tree, "out.txt", S.NCCL_RANK1)
    assert facts.nccl_version == "2.21.5"
    assert facts.world_size == 2
    assert facts.files[0].rank == 1  # from the pid -> rank map, no rank in the path
    assert [(t.rank, t.peer, t.transport) for t in facts.nccl_transports] == [(1, 0, "SHM")]
    ops = [(c.rank, c.op, c.seq, c.count, c.dtype) for c in facts.collectives]
    assert ops == [(1, "allreduce", 0x1A, 64, "float32"), (1, "broadcast", 0x1B, 80, "bfloat16")]
    warn = [s for s in facts.suspicious if "NCCL WARN" in s.text]
    assert len(warn) == 1 and warn[0].rank == 1 and warn[0].line == 10
    assert warn[0].timestamp == "2025-03-12 10:01:02"
    assert facts.env_captures[0].variables == {"NCCL_P2P_DISABLE": "1"}


def test_nccl_pid_rank_resolved_after_the_fact(tree) -> None:  # type: ignore[no-untyped-def]
    facts = one(tree, "nccl.txt", S.NCCL_TWO_PIDS)
    warns = {s.text.split("NCCL WARN ")[1]: s.rank for s in facts.suspicious}
    assert warns == {"early warning before init": 0, "late warning": 1}
    assert [(t.rank, t.peer, t.transport) for t in facts.nccl_transports] == [(0, 1, "NET/IB")]
    assert facts.files[0].rank is None  # two processes in one file


def test_pytorch_watchdog(tree) -> None:  # type: ignore[no-untyped-def]
    facts = one(tree, "console.txt", S.WATCHDOG_RANK3)
    (w,) = facts.watchdog_timeouts
    assert (w.rank, w.op, w.seq, w.timeout_ms, w.elapsed_ms) == (3, "broadcast", 78, 600000, 600096)
    assert w.evidence.timestamp == "07-09 17:05:38.162555850"
    assert facts.files[0].rank == 3
    assert len(facts.suspicious) == 2


def test_interleaved_ranks_detail_and_mismatch(tree) -> None:  # type: ignore[no-untyped-def]
    facts = one(tree, "console.log", S.INTERLEAVED)
    per_rank = {r: [(c.seq, c.op) for c in facts.collectives if c.rank == r] for r in (0, 1)}
    assert per_rank == {
        0: [(11, "allreduce"), (12, "broadcast")],
        1: [(11, "allreduce"), (12, "allreduce")],
    }
    assert [c.count for c in facts.collectives if c.rank == 0] == [4, 6]
    (m,) = facts.mismatches
    assert (m.rank_a, m.op_a, m.rank_b, m.op_b) == (1, "allreduce", 0, "broadcast")
    assert m.evidence.rank == 1
    assert facts.last_progress[0].text.startswith("Epoch 1:  40%")
    assert facts.last_progress[1].text.startswith("Epoch 1:  39%")
    assert facts.files[0].rank is None  # several ranks in one file
    assert facts.ranks == [0, 1]


def test_truncated_log_still_read(tree) -> None:  # type: ignore[no-untyped-def]
    cut = S.WATCHDOG_RANK3[: S.WATCHDOG_RANK3.index("ran for") + 12]  # mid-line, no newline
    facts = one(tree, "cut.log", "[rank3]: step 5\n" + cut)
    assert facts.watchdog_timeouts == []  # the elapsed time was cut: no half-parsed timeout
    assert facts.last_progress[3].line == 1
    assert facts.suspicious[0].line == 2


def test_torchrun(tree) -> None:  # type: ignore[no-untyped-def]
    facts = one(tree, "agent.txt", S.TORCHRUN)
    agent, table = facts.process_failures
    assert (agent.local_rank, agent.exitcode, agent.pid) == (1, -6, 4712)
    assert (table.rank, table.local_rank, table.exitcode, table.signal, table.host, table.root_cause) == (
        1, 1, -6, "SIGABRT", "node-a", True,
    )  # fmt: skip
    assert sorted(facts.last_progress) == [0, 1]  # from [default0]: / [default1]:


def test_plog(tree) -> None:  # type: ignore[no-untyped-def]
    facts = one(tree, "debug/device-1/plog-2111667_20251024.log", S.PLOG_DEVICE1)
    ops = [(c.rank, c.op, c.seq, c.count, c.dtype) for c in facts.collectives]
    assert ops == [
        (1, "allreduce", 1, 1024, "float32"),
        (1, "broadcast", 2, 8, "int64"),
        (1, "allreduce", 3, 2048, "bfloat16"),
    ]
    assert facts.files[0].rank == 1 and facts.world_size == 2
    texts = [s.text for s in facts.suspicious]
    assert any("EI0002" in t for t in texts) and any("ERR02200" in t for t in texts)
    assert any("[Timeout]" in t for t in texts)
    assert facts.suspicious[0].timestamp == "2025-10-24-11:18:29.597.044"


def test_plog_rank_from_entry_without_path(tree) -> None:  # type: ignore[no-untyped-def]
    facts = one(tree, "plog-2111667_20251024.log", S.PLOG_DEVICE1)
    assert {c.rank for c in facts.collectives} == {1}


def test_package_listings(tree) -> None:  # type: ignore[no-untyped-def]
    facts = read_evidence(
        tree({"pip.txt": S.PIP_FREEZE, "list.txt": S.PIP_LIST, "conda.txt": S.CONDA_LIST})
    ).facts
    caps = {c.tool: c.packages for c in facts.package_captures}
    assert caps["pip-freeze"]["torch-npu"] == "2.1.0.post3"
    assert caps["pip-freeze"]["torch"] == "2.1.0+cu121"
    assert caps["pip-list"] == {"accelerate": "0.28.0", "torch": "2.1.0"}
    assert caps["conda-list"] == {"python": "3.10.14", "torch": "2.1.0"}
    # accelerate 1.0.1 vs 0.28.0 is a conflict; torch 2.1.0+cu121 vs 2.1.0 is not
    assert facts.conflicts == [
        "accelerate is 0.28.0 in list.txt:3 (pip-list) but 1.0.1 in pip.txt:1 (pip-freeze)"
    ]


def test_env_and_versions(tree) -> None:  # type: ignore[no-untyped-def]
    facts = read_evidence(
        tree(
            {"acc_env.txt": S.ACCELERATE_ENV, "collect.txt": S.COLLECT_ENV, "smi.txt": S.NVIDIA_SMI}
        )
    ).facts
    assert facts.driver_version == "550.54.14"
    assert facts.cuda_version == "12.4"
    assert facts.torch_cuda_version == "12.1"
    models = [(d.index, d.model, d.memory_mb) for d in facts.devices if d.file == "smi.txt"]
    assert models == [(0, "NVIDIA GeForce RTX 4090", 24564), (1, "NVIDIA GeForce RTX 4090", 24564)]
    assert facts.accelerate_config["distributed_type"] == "MULTI_GPU"
    assert (
        "torch is 2.1.0 in acc_env.txt:5 (accelerate-env) but 2.3.0+cu121 in collect.txt:2 (collect-env)"
        in facts.conflicts
    )


def test_nvidia_smi_l_and_q(tree) -> None:  # type: ignore[no-untyped-def]
    facts = read_evidence(tree({"l.txt": S.NVIDIA_SMI_L, "q.txt": S.NVIDIA_SMI_Q})).facts
    assert [(d.index, d.model) for d in facts.devices if d.file == "l.txt"] == [
        (0, "NVIDIA A100-SXM4-80GB"), (1, "NVIDIA A100-SXM4-80GB"),
    ]  # fmt: skip
    (q,) = [d for d in facts.devices if d.file == "q.txt"]
    assert (q.index, q.model, q.bus_id, q.memory_mb) == (
        0,
        "NVIDIA A100-SXM4-80GB",
        "00000000:07:00.0",
        81920,
    )
    assert facts.driver_version == "535.104.05" and facts.cuda_version == "12.2"


def test_topology(tree) -> None:  # type: ignore[no-untyped-def]
    topo = one(tree, "topo.txt", S.TOPO).topology
    assert topo is not None
    assert topo.devices == ["GPU0", "GPU1", "NIC0"]
    assert topo.links["GPU0,GPU1"] == "PHB" and topo.links["GPU1,NIC0"] == "SYS"
    assert "GPU0,GPU0" not in topo.links


def test_npu_smi_ignores_process_table(tree) -> None:  # type: ignore[no-untyped-def]
    facts = one(tree, "npu.txt", S.NPU_SMI)
    assert [(d.index, d.model, d.kind, d.bus_id, d.memory_mb) for d in facts.devices] == [
        (0, "910B3", "npu", "0000:C1:00.0", 65536), (1, "910B3", "npu", "0000:C2:00.0", 65536),
    ]  # fmt: skip


def test_summary_names_the_driver_by_device_kind(tree) -> None:  # type: ignore[no-untyped-def]
    from kb.evidence.summary import render_summary

    npu = render_summary(read_evidence(tree({"npu.txt": S.NPU_SMI}, "a")))
    gpu = render_summary(read_evidence(tree({"smi.txt": S.NVIDIA_SMI}, "b")))
    assert "Ascend NPU driver: " in npu and "NVIDIA" not in npu
    assert "NVIDIA driver: " in gpu


def test_env_dumps_and_conflict(tree) -> None:  # type: ignore[no-untyped-def]
    facts = read_evidence(tree({"rank0/env.txt": S.ENV_EXPORT, "rank1/env.txt": S.ENV_PLAIN})).facts
    first = facts.env_captures[0].variables
    assert first["CUDA_VISIBLE_DEVICES"] == "0,1" and first["NCCL_P2P_DISABLE"] == "1"
    assert any(c.startswith("NCCL_P2P_DISABLE differs") for c in facts.conflicts)
    assert facts.world_size == 2  # from WORLD_SIZE, nothing better available


def test_accelerate_config(tree) -> None:  # type: ignore[no-untyped-def]
    facts = one(tree, "default_config.yaml", S.ACCELERATE_CONFIG)
    assert facts.accelerate_config == {
        "compute_environment": "LOCAL_MACHINE", "distributed_type": "MULTI_NPU", "mixed_precision": "bf16",
        "num_machines": 1, "num_processes": 2, "gpu_ids": "all",
    }  # fmt: skip


def test_bad_yaml_reported_not_raised(tree) -> None:  # type: ignore[no-untyped-def]
    facts = one(tree, "default_config.yaml", "distributed_type: MULTI_GPU\nnum_processes: [2\n")
    assert facts.accelerate_config == {}
    assert facts.suspicious[0].text.startswith("YAML not readable")


def test_pyspy_and_faulthandler(tree) -> None:  # type: ignore[no-untyped-def]
    facts = read_evidence(
        tree({"rank2/pyspy.txt": S.PYSPY, "rank3/crash.txt": S.FAULTHANDLER})
    ).facts
    main, other, fh = facts.stacks
    assert (main.rank, main.pid, main.thread) == (2, 4711, "MainThread (idle)")
    assert [fr.function for fr in main.frames] == [
        "all_reduce",
        "wrapper",
        "wait_for_everyone",
        "main",
    ]
    assert (
        main.frames[0].file == "torch/distributed/distributed_c10d.py"
        and main.frames[0].line == 2050
    )
    assert [fr.function for fr in other.frames] == ["wait"]
    assert fh.rank == 3 and [fr.function for fr in fh.frames] == ["all_reduce", "backward"]
    assert fh.thread.endswith("(current)")


def test_python_source_findings(tree) -> None:  # type: ignore[no-untyped-def]
    facts = one(tree, "train.py", S.TRAIN_PY)
    got = [(s.finding, s.call, s.evidence.line) for s in facts.source_findings]
    assert got == [
        ("collective-in-main-only-branch", "accelerator.gather", 8),
        ("save-in-main-only-branch", "model.save_pretrained", 9),
        ("collective-in-main-only-branch", "dist.barrier", 11),
        ("save-in-main-only-branch", "torch.save", 13),
    ]
    # the unconditional wait_for_everyone on line 14 is not a finding
    assert all(s.evidence.line != 14 for s in facts.source_findings)


def test_python_syntax_error_reported(tree) -> None:  # type: ignore[no-untyped-def]
    facts = one(tree, "broken.py", "def f(:\n    pass\n")
    assert facts.source_findings == []
    assert "syntax error" in facts.suspicious[0].text


def test_notes(tree) -> None:  # type: ignore[no-untyped-def]
    facts = one(tree, "issue.md", S.NOTES)
    assert [n.text for n in facts.notes] == S.NOTES.splitlines()


def test_text_log_fallback(tree, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    log = "starting\nstep 5 loss 1.2\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 GiB\nHCCL_CONNECT_TIMEOUT set by default to [120]s\n"
    facts = one(tree, "rank4.log", log)
    assert facts.last_progress[4].line == 2
    assert [s.line for s in facts.suspicious] == [3]  # the echoed timeout setting is not suspicious


def _rotated(pid: int) -> str:
    """A later plog of one process: its entries name the device, its init entry (and so its
    global rank) is in an earlier file."""
    entries = [ln for ln in S.PLOG_DEVICE1.splitlines() if "Entry-HcclAllReduce" in ln]
    return "\n".join(ln.replace("2111667", str(pid)) for ln in entries) + "\n"


def test_plog_rank_from_its_init_entry(tree) -> None:  # type: ignore[no-untyped-def]
    facts = one(tree, "plog/plog-2111667_1.log", S.PLOG_DEVICE1)
    assert [(f.rank, f.rank_from) for f in facts.files] == [(1, "content")]
    assert facts.conflicts == []


def test_device_id_shared_by_processes_is_not_taken_for_one_rank(tree) -> None:  # type: ignore[no-untyped-def]
    from kb.evidence.summary import render_summary

    two_nodes = read_evidence(tree({
        "node0/plog/plog-4100_1.log": _rotated(4100), "node1/plog/plog-5200_1.log": _rotated(5200),
    }, "a"))  # fmt: skip
    files = two_nodes.facts.files
    assert [(f.rank, f.rank_from) for f in files] == [(1, "device"), (1, "device")]
    [conflict] = two_nodes.facts.conflicts
    assert (
        "rank 1 of node0/plog/plog-4100_1.log, node1/plog/plog-5200_1.log is a device id"
        in conflict
    )
    assert "[rank 1 (device id)]" in render_summary(two_nodes)
    # one process, its plog rotated into debug/ and run/: one device, one process, no conflict
    one_process = read_evidence(tree({
        "debug/plog/plog-4100_1.log": _rotated(4100), "run/plog/plog-4100_2.log": _rotated(4100),
    }, "b"))  # fmt: skip
    assert one_process.facts.conflicts == []


def test_lines_that_name_their_rank_beat_the_path(tree) -> None:  # type: ignore[no-untyped-def]
    # node1/rank3.log: a node-local index in the path, torchrun's global rank in the prefixes
    prefixed = S.WATCHDOG_RANK3.replace("rank3", "rank11").replace("Rank 3", "Rank 11")
    # a Kubeflow-style pod log: one node's two processes, their ranks in NCCL's init lines
    pod = S.NCCL_TWO_PIDS.replace("rank 0 nranks 2", "rank 24 nranks 32")
    pod = pod.replace("rank 1 nranks 2", "rank 25 nranks 32")
    facts = read_evidence(tree({
        "node1/rank3.log": prefixed, "node1/worker-3.log": pod,
        "rank5/train.log": S.WATCHDOG_RANK3.replace("[rank3]:", ""),
    })).facts  # fmt: skip
    files = {f.path: (f.rank, f.rank_from) for f in facts.files}
    assert files == {
        "node1/rank3.log": (11, "content"),
        "node1/worker-3.log": (None, None),
        # a message's rank may be a subgroup's (`[PG ID 3 … Rank 1]`): the path stays
        "rank5/train.log": (5, "path"),
    }
    warns = sorted((s.rank, s.line) for s in facts.suspicious if "NCCL WARN" in s.text)
    assert warns == [(24, 1), (25, 5)]
    assert facts.conflicts == [
        "node1/rank3.log: the path says rank 3 but its lines say rank 11 ([rank11]: prefixes); "
        "rank 11 is used",
        "node1/worker-3.log: the path says rank 3 but its lines come from several ranks; "
        "each line keeps the rank it names",
    ]


def test_files_of_one_process_share_the_rank_one_of_them_names(tree) -> None:  # type: ignore[no-untyped-def]
    # run/ holds the init entry (global rank 9 on device 1); debug/ only device ids
    run = S.PLOG_DEVICE1.replace("ranks[2], rank[1]", "ranks[16], rank[9]").replace(
        "RankID:1", "RankID:9"
    )
    facts = read_evidence(tree({
        "node1/run/plog/plog-2111667_1.log": run,
        "node1/debug/plog/plog-2111667_1.log": _rotated(2111667),
        "node1/debug/plog/plog-7000_1.log": _rotated(7000),  # another process: its own device id
    })).facts  # fmt: skip
    files = {f.path: (f.rank, f.rank_from) for f in facts.files}
    assert files == {
        "node1/run/plog/plog-2111667_1.log": (9, "content"),
        "node1/debug/plog/plog-2111667_1.log": (9, "process"),
        "node1/debug/plog/plog-7000_1.log": (1, "device"),
    }
    assert {
        c.rank for c in facts.collectives if c.file.startswith("node1/debug/plog/plog-2111667")
    } == {9}


def test_rank_of_a_failed_hccl_task(tree) -> None:  # type: ignore[no-untyped-def]
    text = (
        "[ERROR] HCCL(51877,python):2025-06-10-14:33:20.014.290 [task_exception_handler.cc:771] "
        "[51877][TaskExecStage][Timeout][Host]Task run failed, groupRank information is "
        "group:[g], user define information[], rankSize[16], rankId[13].\n"
        "[ERROR] HCCL(51877,python):2025-06-10-14:33:20.014.322 [task_exception_handler.cc:704] "
        "[51877][TaskExecStage][Timeout][Host]Task run failed, opData information is "
        "timeStamp:[x], deviceId[5], index[29411], count[67108864], dataType[bfloat16].\n"
    )
    facts = one(tree, "plog/plog-51877_1.log", text)
    assert [(f.rank, f.rank_from) for f in facts.files] == [(13, "content")]


def test_torchrun_log_dir_ranks_start_where_a_prefixed_file_says(tree) -> None:  # type: ignore[no-untyped-def]
    # 2 nodes x 8 processes, only local ranks 0 and 3 of node 1 copied: counting the local
    # ranks present would make node 1 start at 4; its stderr's [rank8]: prefix says 8
    run = "node{n}/logs/run_1/attempt_0/{local}/{stream}.log"
    facts = read_evidence(tree({
        run.format(n=0, local=0, stream="stdout"): "step 3 loss 1.0\n",
        run.format(n=1, local=0, stream="stdout"): "step 3 loss 1.1\n",
        run.format(n=1, local=0, stream="stderr"): "[rank8]: Traceback (most recent call last):\n",
        run.format(n=1, local=3, stream="stdout"): "step 3 loss 1.2\n",
    })).facts  # fmt: skip
    ranks = {f.path.split("logs/run_1/attempt_0/")[0] + f.path.split("attempt_0/")[1]: f.rank
             for f in facts.files}  # fmt: skip
    assert ranks == {"node0/0/stdout.log": 0, "node1/0/stdout.log": 8, "node1/0/stderr.log": 8,
                     "node1/3/stdout.log": 11}  # fmt: skip
    assert {f.rank_from for f in facts.files} == {"path"}


def test_torchrun_log_dir_rank_counted_from_copied_files_is_called_a_guess(tree) -> None:  # type: ignore[no-untyped-def]
    from kb.evidence.summary import render_summary

    run = "node{n}/logs/run_1/attempt_0/{local}/stdout.log"
    bundle = read_evidence(tree({run.format(n=n, local=local): "step 3 loss 1.0\n"
                                 for n, local in ((0, 0), (1, 0), (1, 3))}))  # fmt: skip
    got = sorted((f.path.split("/")[0], f.rank, f.rank_from) for f in bundle.facts.files)
    assert got == [("node0", 0, "path"), ("node1", 4, "path-guess"), ("node1", 7, "path-guess")]
    assert "[rank 7 (guessed: node × the local ranks present)]" in render_summary(bundle)


def test_ib_completion_error_is_suspicious(tree) -> None:  # type: ignore[no-untyped-def]
    # NCCL prints the failed IB work request under "Last error:", without a WARN prefix
    text = (
        "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
        "Last error:\n"
        "NET/IB : Got completion from peer 10.1.2.3<39138> with error 12, opcode 0, len 0, vendor err 129\n"
    )
    facts = one(tree, "error.log", text)
    assert [s.line for s in facts.suspicious] == [1, 3]


def test_pytorch_cpp_error_lines_are_suspicious_warnings_are_not(tree) -> None:  # type: ignore[no-untyped-def]
    text = (
        "[W socket.cpp:401] [c10d] The server socket has failed to bind to 0.0.0.0:47531 (errno: 98 - Address already in use).\n"
        "[E socket.cpp:435] [c10d] The server socket has failed to listen on any local network address.\n"
        "[rank1]:[E1104 09:12:01.123456789 ProcessGroupNCCL.cpp:1484] [PG ID 0 PG GUID 0(default_pg) Rank 1] Process group watchdog thread terminated\n"
        "E1104 09:12:03.000000 4700 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -6) local_rank: 1 (pid: 4712) of binary: /usr/bin/python3\n"
        "I1104 09:12:04.000000 4700 torch/distributed/elastic/agent/server/api.py:700] Done waiting for other agents\n"
    )
    facts = one(tree, "console.log", text)
    assert sorted({s.line for s in facts.suspicious}) == [2, 3, 4]


def test_local_index_in_path_and_global_prefix_are_no_conflict(tree) -> None:  # type: ignore[no-untyped-def]
    facts = read_evidence(
        tree({"logs/r/attempt_0/1/stderr.log": "[rank9]: Traceback (most recent call last):\n"})
    ).facts
    assert [(f.rank, f.rank_from) for f in facts.files] == [(9, "content")]
    assert facts.conflicts == []


def test_a_note_that_names_torchrun_is_still_a_note(tmp_path: Path) -> None:
    """One sentence naming the launcher made a whole notes.txt read as torchrun's log: the
    user's words were lost to every notes query and shown as a 'last progress line'."""
    (tmp_path / "notes.txt").write_text(
        "Training on 8 GPUs with torchrun hangs at evaluation; nothing is printed for 30 "
        "minutes and we kill the job.\n",
        encoding="utf-8",
    )
    facts = read_evidence(tmp_path).facts
    assert [(f.path, f.kind) for f in facts.files] == [("notes.txt", "notes")]
    (note,) = facts.notes
    assert note.text.startswith("Training on 8 GPUs with torchrun")


def test_a_torchrun_log_named_notes_stays_a_log(tmp_path: Path) -> None:
    """The name alone does not make a note: tool output under that name is still read as
    what it is."""
    (tmp_path / "notes.txt").write_text(
        "[rank0]: Traceback (most recent call last):\n"
        "[rank1]:[E ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)="
        "600000) ran for 600042 milliseconds before timing out.\n",
        encoding="utf-8",
    )
    (kind,) = {f.kind for f in read_evidence(tmp_path).facts.files}
    assert kind != "notes"
