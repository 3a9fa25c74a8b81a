"""Write a realistic multi-rank evidence folder and N case-like log queries for the scan benchmark.

Why: scan speed depends on the text (line lengths, how often a pattern's literals occur) and on the
patterns, so both imitate real NCCL / PyTorch / Ascend output (formats from
shared/reference/log-formats.md) instead of random bytes. Output is deterministic for a given seed.

    python benchmarks/generate_evidence.py --out /tmp/kb-bench/ev --size-mb 1024 --ranks 64
    python benchmarks/generate_evidence.py --patterns-out /tmp/kb-bench/p500.tsv --patterns 500
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

OPS = ["ALLREDUCE", "BROADCAST", "ALLGATHER", "REDUCE_SCATTER", "SEND", "RECV", "ALLTOALL"]
NCCL_ERRORS = [
    "unhandled system error (run with NCCL_DEBUG=INFO for details)",
    "remote process exited or there was a network error",
    "unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
    "internal error - please report this issue to the NCCL developers",
    "invalid usage (run with NCCL_DEBUG=WARN for details)",
]
WARN_MSGS = [
    (
        "misc/socket.cc",
        58,
        "socketProgress",
        "socketProgress: Connection closed by remote peer {peer}<{port}>",
    ),
    (
        "transport/net_ib.cc",
        1696,
        "ncclIbTest",
        "NET/IB: Got completion from peer {peer}<{port}> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) vendor_err=129",
    ),
    ("include/checks.h", 45, "ncclCudaCall", "Cuda failure 'out of memory'"),
    (
        "graph/paths.cc",
        318,
        "ncclTopoCheckP2p",
        "P2P is disabled between NVLINK connected GPUs 1 and 2. This should not be the case given their connectivity, and is probably due to a hardware issue. If you still want to proceed, you can set NCCL_IGNORE_DISABLED_P2P=1.",
    ),
    (
        "proxy.cc",
        1210,
        "proxyProgress",
        "[Proxy Service {rank}] Failed to execute operation Connect from rank {rank}, retcode 3",
    ),
]
EI_CODES = [f"EI{n:04d}" for n in (1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14, 15, 19)]


class Rank:
    """Per-rank identity (host, pid, device) and counters, so lines of one file agree."""

    def __init__(self, rank: int, nranks: int, rng: random.Random) -> None:
        self.rank, self.nranks, self.rng = rank, nranks, rng
        self.host = f"node-{rank // 8:03d}"
        self.pid = 4000 + rank * 17
        self.dev = rank % 8
        self.step = 0
        self.seq = 0

    def prefix(self, tid_offset: int = 0) -> str:
        return f"{self.host}:{self.pid}:{self.pid + tid_offset} [{self.dev}]"

    def ts(self) -> str:
        r = self.rng
        return f"2025-03-12 {r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}"


def nccl_init(r: Rank) -> list[str]:
    p = r.prefix()
    lines = [
        f"{p} NCCL INFO NCCL version 2.21.5+cuda12.4",
        f"{p} NCCL INFO Bootstrap : Using eth0:10.0.{r.rank // 8}.{r.rank % 8 + 10}<0>",
        f"{p} NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB eth0:10.0.0.{r.rank}<0>",
        f"{p} NCCL INFO Using network IB",
        f"{p} NCCL INFO NCCL_P2P_LEVEL set by environment to NVL",
        f"{p} NCCL INFO ncclCommInitRank comm 0x5d3e0a0 rank {r.rank} nranks {r.nranks} cudaDev {r.dev} nvmlDev {r.dev} busId {0x18000 + r.dev * 0x1000:x} commId 0x9c2b51e2f1a4c3d7 - Init START",
        f"{p} NCCL INFO comm 0x5d3e0a0 rank {r.rank} nRanks {r.nranks} nNodes {max(1, r.nranks // 8)} localRanks 8 localRank {r.dev} MNNVL 0",
    ]
    if r.rank == 0:
        lines.append(
            f"{p} NCCL INFO Channel 00/02 :" + "".join(f" {i:>2}" for i in range(r.nranks))
        )
    lines.append(
        f"{p} NCCL INFO ncclCommInitRank comm 0x5d3e0a0 rank {r.rank} nranks {r.nranks} cudaDev {r.dev} nvmlDev {r.dev} busId {0x18000 + r.dev * 0x1000:x} commId 0x9c2b51e2f1a4c3d7 - Init COMPLETE"
    )
    return lines


def nccl_channel(r: Rank) -> str:
    g = r.rng
    ch, peer = g.randint(0, 31), (r.rank + 1) % r.nranks
    kind = g.random()
    p = r.prefix(g.randint(40, 90))
    if kind < 0.45:
        via = g.choice(["P2P/CUMEM/read", "P2P/CUMEM", "P2P/IPC/read", "P2P/direct pointer"])
        return (
            f"{p} NCCL INFO Channel {ch:02d}/0 : {r.rank}[{r.dev}] -> {peer}[{peer % 8}] via {via}"
        )
    if kind < 0.85:
        side = g.choice(["[send]", "[receive]"])
        return f"{p} NCCL INFO Channel {ch:02d}/0 : {r.rank}[{r.dev}] -> {peer}[{peer % 8}] {side} via NET/IB/{g.randint(0, 3)}/GDRDMA"
    if kind < 0.95:
        return f"{p} NCCL INFO Channel {ch:02d} : {r.rank}[{r.dev}] -> {peer}[{peer % 8}] via SHM/direct/direct"
    return f"{p} NCCL INFO Connected all rings, use ring PXN 0 GDR 1"


def nccl_warn(r: Rank) -> str:
    g = r.rng
    f, line, func, msg = g.choice(WARN_MSGS)
    text = msg.format(peer=f"node-{g.randint(0, 7):03d}", port=g.randint(30000, 60000), rank=r.rank)
    return f"[{r.ts()}] {r.prefix(g.randint(40, 90))} {f}:{line} ({func}) NCCL WARN {text}"


def step_log(r: Rank) -> str:
    r.step += 1
    g = r.rng
    return (
        f"[default{r.dev}]:{{'loss': {g.uniform(0.5, 3.0):.4f}, 'grad_norm': {g.uniform(0.1, 9):.3f}, "
        f"'learning_rate': {g.uniform(1e-5, 3e-4):.3e}, 'epoch': {r.step / 5000:.2f}}}  "
        f"step={r.step} tokens/s={g.randint(90000, 130000)} mem_alloc={g.randint(20, 70)}.{g.randint(0, 9)}GB"
    )


def tqdm_line(r: Rank) -> str:
    g = r.rng
    done = r.step % 1000
    bar = "█" * (done // 50) + "▍" + " " * (19 - done // 50)
    return f"Training:  {done // 10:2d}%|{bar}| {done}/1000 [{done // 60:02d}:{done % 60:02d}<12:31, {g.uniform(1, 3):.2f}it/s]"


def torch_line(r: Rank) -> str:
    g = r.rng
    r.seq += 1
    ns = g.randint(10**8, 10**9 - 1)
    if g.random() < 0.9:
        return f"[rank{r.rank}]:[I709 17:{g.randint(0, 59):02d}:{g.randint(0, 59):02d}.{ns} ProcessGroupNCCL.cpp:{g.choice([851, 1038, 2271])}] [PG ID 0 PG GUID 0(default_pg) Rank {r.rank}] ProcessGroupNCCL initialization options: size: {r.nranks}, global rank: {r.rank}, TIMEOUT(ms): 600000"
    op = g.choice(OPS)
    n = g.randint(1, 10**6)
    return f"[rank{r.rank}]:[E709 17:05:38.{ns} ProcessGroupNCCL.cpp:632] [Rank {r.rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={r.seq}, OpType={op}, NumelIn={n}, NumelOut={n}, Timeout(ms)=600000) ran for {600000 + g.randint(1, 500)} milliseconds before timing out."


def torch_error(r: Rank) -> str:
    g = r.rng
    kind = g.random()
    if kind < 0.4:
        return f"[rank{r.rank}]:[E709 17:05:38.162814866 ProcessGroupNCCL.cpp:2271] [PG ID 0 PG GUID 0(default_pg) Rank {r.rank}]  failure detected by watchdog at work sequence id: {r.seq} PG status: last enqueued work: {r.seq + 1}, last completed work: {r.seq - 1}"
    if kind < 0.7:
        return f"torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, {g.choice(NCCL_ERRORS)}, NCCL version 2.21.5"
    return "[E709 17:05:39.000000001 ProcessGroupNCCL.cpp:1595] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data."


APP_MSGS = [
    "trainer.py:{n} - INFO - Saving model checkpoint to /ckpt/checkpoint-{n}",
    "dataloader.py:{n} - INFO - Loaded shard {n} of /data/train-{n:05d}.parquet",
    "UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly.",
    "accelerate.py:{n} - WARNING - Gradient overflow. Skipping step, loss scaler reducing loss scale to {n}",
    "evaluation.py:{n} - INFO - eval_loss = 1.{n} eval_accuracy = 0.{n}",
]


def app_log(r: Rank) -> str:
    g = r.rng
    msg = g.choice(APP_MSGS).format(n=g.randint(1, 9999))
    return f"[default{r.dev}]:2025-03-12 10:{g.randint(0, 59):02d}:{g.randint(0, 59):02d},{g.randint(0, 999):03d} - {msg}"


def plog_init(r: Rank) -> list[str]:
    """What HCCL_ENTRY_LOG_ENABLE=1 writes when the process joins the job: the communicator
    entry names the global rank (the device id repeats on every node)."""
    t = "2025-10-24-11:00:00.000.001"
    root = "10.0.0.1%eth0_60000_0_1729739908"
    return [
        f"[INFO] HCCL({r.pid},python):{t} [op_base.cc:1292] [{r.pid}]Entry-HcclCommInitRootInfoInner:ranks[{r.nranks}], rank[{r.rank}], rootinfo: host ip[10.0.0.1] port[60000] nicDeploy[1] identifier[{root}], deviceLogicId[{r.dev}]",
        f"[INFO] HCCL({r.pid},python):{t} [adapter_hccp.cc:96] [{r.pid}][HCCL_ENV] HCCL_CONNECT_TIMEOUT set by default to [120]s",
    ]


def plog_line(r: Rank) -> str:
    g = r.rng
    t = f"2025-10-24-11:{g.randint(0, 59):02d}:{g.randint(0, 59):02d}.{g.randint(0, 999):03d}.{g.randint(0, 999):03d}"
    kind = g.random()
    if kind < 0.5:
        return f"[INFO] HCCL({r.pid},python):{t} [all_reduce_op.cc:{g.randint(100, 400)}] [{r.pid}]Entry-HcclAllReduce:tag[AllReduce_10.0.0.1%eth0_60000_0_1729739908], sendBuf[0x12c0{g.randint(0, 99999):05x}], recvBuf[0x12c1{g.randint(0, 99999):05x}], count[{g.randint(1, 10**8)}], dataType[float32], reduceOp[sum], streamId[{g.randint(1, 9)}], deviceId[{r.dev}]"
    if kind < 0.94:
        return f"[INFO] RUNTIME({r.pid},python):{t} [stream.cc:{g.randint(100, 999)}] {r.pid} Stream synchronize success, stream_id={g.randint(1, 99)}"
    if kind < 0.97:
        return f"[ERROR] HCCL({r.pid},python):{t} [task_exception_handler.cc:908] [{r.pid}][TaskExecStage][Timeout][Host]Task run failed, base information is streamID:[2], taskID[{g.randint(1, 99)}], tag[AllReduce_10.0.0.1%eth0_60000_0_1729739908], AlgType(level 0-1-2):[fullmesh-ring-NHR]."
    code = g.choice(EI_CODES)
    return f"{code}: [PID: {r.pid}] {t} The wait execution of the Notify register times out. Reason: The remote rank did not arrive. tag[AllReduce_group]"


# (weight, line maker) for GPU ranks and for Ascend ranks; weights are per line drawn.
GPU_MIX: list[tuple[float, Callable[[Rank], str]]] = [
    (0.03, nccl_channel),
    (0.38, step_log),
    (0.45, tqdm_line),
    (0.02, torch_line),
    (0.11, app_log),
    (0.003, torch_error),
    (0.002, nccl_warn),
]
ASCEND_MIX: list[tuple[float, Callable[[Rank], str]]] = [
    (0.20, plog_line),
    (0.30, step_log),
    (0.35, tqdm_line),
    (0.15, app_log),
]


def rank_lines(r: Rank, ascend: bool) -> Iterator[str]:
    """Endless line stream of one rank: init block first, then a weighted mix."""
    yield from plog_init(r) if ascend else nccl_init(r)
    mix = ASCEND_MIX if ascend else GPU_MIX
    makers = [m for _, m in mix]
    weights = [w for w, _ in mix]
    while True:
        for maker in r.rng.choices(makers, weights, k=1024):
            yield maker(r)


def write_folder(out: Path, size_mb: float, ranks: int, seed: int = 7) -> list[Path]:
    """Write `ranks` files totalling about `size_mb` MiB; every eighth rank is an Ascend plog."""
    out.mkdir(parents=True, exist_ok=True)
    per_file = int(size_mb * (1 << 20) / ranks)
    paths = []
    for i in range(ranks):
        ascend = i % 8 == 7
        r = Rank(i, ranks, random.Random(seed * 1000 + i))
        name = f"plog-{r.pid}_20251024111829.log" if ascend else f"rank_{i:03d}.log"
        path = out / name
        written = 0
        with open(path, "wb") as f:
            lines = rank_lines(r, ascend)
            while written < per_file:
                block = ("\n".join(next(lines) for _ in range(2000)) + "\n").encode()
                f.write(block)
                written += len(block)
        paths.append(path)
    return paths


# ---------------------------------------------------------------- patterns


def _pattern_families(rng: random.Random) -> Iterator[tuple[str, bool]]:
    """Yield (regex, ignore_case) forever: a few hot queries, then many rare variations."""
    hot = [
        (r"via P2P/(IPC|CUMEM)", False),
        (r"NCCL INFO Channel \d+/\d+ : \d+\[\d+\] -> \d+\[\d+\] \[send\] via NET/IB", False),
        (
            r"Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=\d+, OpType=ALLREDUCE",
            False,
        ),
        (r"NCCL WARN .*Connection closed by remote peer", False),
        (r"\[TaskExecStage\]\[Timeout\]", False),
        (r"EI000[0-9]", False),
        (r"NCCL version (\d+)\.(\d+)\.(\d+)", False),
        (r"^\[rank\d+\]:\[E\d{3,4} ", False),
        (r"failure detected by watchdog at work sequence id: (?P<seq>\d+)", False),
        (r"nan loss|loss': nan", True),
    ]
    yield from hot
    while True:
        kind = rng.randrange(12)
        op = rng.choice(OPS)
        n = rng.randint(0, 99)
        if kind == 0:
            yield (
                rf"Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=\d+, OpType={op}, NumelIn={n}\d*",
                False,
            )
        elif kind == 1:
            yield (
                rf"NCCL WARN .*{rng.choice(['Cuda failure', 'socketProgress', 'NET/IB', 'Proxy Service', 'P2P is disabled'])}.*{rng.choice(['remote', 'error', 'status=', 'peer', 'retcode', 'GPUs'])} ?[a-z]*{n}",
                False,
            )
        elif kind == 2:
            yield rf"EI00{n:02d}\b", False
        elif kind == 3:
            yield rf"via NET/(IB|Socket)/{n % 8}(/GDRDMA)?$", False
        elif kind == 4:
            yield rf"ProcessGroupNCCL\.cpp:{rng.randint(100, 3000)}\] .*(timeout|error)", True
        elif kind == 5:
            yield (
                rf"NCCL error in: .*{rng.choice(['system', 'cuda', 'internal', 'invalid usage', 'remote process'])}.*version 2\.{n % 30}\.",
                False,
            )
        elif kind == 6:
            yield (
                rf"\[ERROR\] ?{rng.choice(['HCCL', 'RUNTIME', 'GE', 'TBE'])}\(\d+,\w+\):.*\[{rng.choice(['TaskExecStage', 'InitChannelStage', 'HeartbeatAbnormal'])}\].*{rng.choice(['Timeout', 'Error', 'LOST', 'STUCK'])}{n}",
                False,
            )
        elif kind == 7:
            yield (
                rf"ERR0{n % 5}{rng.randint(0, 999):03d} {rng.choice(['PTA', 'OPS', 'DIST', 'GRAPH', 'PROF'])}",
                False,
            )
        elif kind == 8:
            yield (
                rf"CUDA (error|failure).*{rng.choice(['illegal memory access', 'out of memory', 'device-side assert', 'ECC error', 'launch failure'])} ?{n}",
                True,
            )
        elif kind == 9:
            yield (
                rf"{rng.choice(['NCCL_P2P_LEVEL', 'NCCL_IB_HCA', 'NCCL_SOCKET_IFNAME', 'NCCL_NET_GDR_LEVEL', 'NCCL_ALGO'])} set by environment to [A-Za-z0-9_]*{n}",
                False,
            )
        elif kind == 10:
            yield "loss[=:'\" ]+" + rf"{rng.uniform(10, 99):.1f}\d*", False
        else:
            yield (
                rf"(Segmentation fault|SIGSEGV|signal {n}|Signal {n} \(SIG[A-Z]+\) received by PID \d+)",
                True,
            )


def make_patterns(n: int, seed: int = 11) -> list[tuple[int, str, bool]]:
    """`n` distinct (pattern_id, regex, ignore_case) triples; ids are 1..n."""
    rng = random.Random(seed)
    seen: set[tuple[str, bool]] = set()
    out: list[tuple[int, str, bool]] = []
    for regex, icase in _pattern_families(rng):
        if (regex, icase) in seen:
            continue
        seen.add((regex, icase))
        out.append((len(out) + 1, regex, icase))
        if len(out) == n:
            return out
    raise AssertionError("unreachable")


def write_rg_patterns(patterns: list[tuple[int, str, bool]], path: Path) -> None:
    """One regex a line for `rg -f`: `(?-u)` gives byte classes like hyperscan (Unicode `\\d` is
    40-300x slower in rg), case-insensitivity is written inline."""
    path.write_text("".join("(?-u)" + ("(?i)" if ic else "") + rx + "\n" for _, rx, ic in patterns))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", type=Path, help="evidence folder to write")
    ap.add_argument("--size-mb", type=float, default=1024)
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--patterns", type=int, default=500)
    ap.add_argument("--patterns-out", type=Path, help="write patterns as id<TAB>icase<TAB>regex")
    args = ap.parse_args(argv)
    if args.out:
        paths = write_folder(args.out, args.size_mb, args.ranks, args.seed)
        total = sum(p.stat().st_size for p in paths)
        print(f"wrote {len(paths)} files, {total / 1e6:.1f} MB to {args.out}", file=sys.stderr)
    if args.patterns_out:
        pats = make_patterns(args.patterns)
        args.patterns_out.write_text("".join(f"{i}\t{int(ic)}\t{rx}\n" for i, rx, ic in pats))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
