"""Typed facts extracted from an evidence folder.

Sources (one module per kind of evidence under `kb.evidence.sources`) fill these models;
the matcher (`kb.match`) only ever reads them. Every fact that came from a line keeps an
`EvidenceLine` so a verdict can show the file, line number, rank and the line itself.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class EvidenceLine(BaseModel):
    """One line of one file, as shown to the user next to a verdict."""

    file: str  # path relative to the evidence root (archive members as "x.tar.gz!/a/b.log")
    line: int  # 1-based
    rank: int | None = None
    text: str
    timestamp: str | None = None
    source: str = ""  # the source name that produced it (e.g. "nccl", "plog")

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


class EvidenceFile(BaseModel):
    """A file that was read, how it was classified and which rank it belongs to."""

    path: str
    kind: str  # source name from the registry, e.g. "nccl", "pip-freeze", "text-log"
    rank: int | None = None
    node: str | None = None
    size: int = 0
    lines: int = 0


class SkippedFile(BaseModel):
    path: str
    reason: str  # binary, unreadable, too large, bad encoding, unsafe archive member, ...


class PackageCapture(BaseModel):
    """One package listing (pip freeze, pip list, conda list, collect_env, accelerate env)."""

    file: str
    tool: str
    packages: dict[str, str] = Field(default_factory=dict)  # normalized name -> version
    lines: dict[str, int] = Field(default_factory=dict)  # normalized name -> line number


class EnvCapture(BaseModel):
    file: str
    variables: dict[str, str] = Field(default_factory=dict)
    lines: dict[str, int] = Field(default_factory=dict)


class Device(BaseModel):
    index: int | None = None
    kind: str = "gpu"  # gpu | npu
    model: str
    memory_mb: int | None = None
    bus_id: str | None = None
    file: str = ""
    line: int = 0


class Topology(BaseModel):
    """`nvidia-smi topo -m`: link type for each ordered pair of GPU names."""

    file: str = ""
    devices: list[str] = Field(default_factory=list)  # "GPU0", "GPU1", ...
    links: dict[str, str] = Field(default_factory=dict)  # "GPU0,GPU1" -> "PHB"
    lines: dict[str, int] = Field(default_factory=dict)  # "GPU0" -> line of that matrix row


class CollectiveOp(BaseModel):
    """One collective as logged by HCCL entry logs, DETAIL mode or NCCL traces."""

    rank: int
    op: str  # normalized lower-case: allreduce, broadcast, allgather, ...
    seq: int | None = None
    count: int | None = None
    dtype: str | None = None
    evidence: EvidenceLine | None = None  # kept for the first and last few ops of each rank


class WatchdogTimeout(BaseModel):
    rank: int | None
    op: str
    seq: int | None = None
    timeout_ms: int | None = None
    elapsed_ms: int | None = None
    evidence: EvidenceLine


class CollectiveMismatch(BaseModel):
    """PyTorch's "Detected mismatch between collectives on ranks" and its kin."""

    rank_a: int | None = None
    op_a: str | None = None
    rank_b: int | None = None
    op_b: str | None = None
    evidence: EvidenceLine


class StackFrame(BaseModel):
    function: str
    file: str
    line: int | None = None


class StackThread(BaseModel):
    rank: int | None = None
    pid: int | None = None
    thread: str = ""
    frames: list[StackFrame] = Field(default_factory=list)  # innermost first
    evidence: EvidenceLine


class SourceFinding(BaseModel):
    """A pattern found in a training script, e.g. a barrier inside `if is_main_process:`."""

    finding: str  # collective-in-main-only-branch | save-in-main-only-branch | call
    call: str
    guard: str = ""
    evidence: EvidenceLine


class NcclTransport(BaseModel):
    rank: int | None
    peer: int | None
    transport: str  # P2P/IPC, P2P/CUMEM, SHM, NET/IB, NET/Socket, ...
    evidence: EvidenceLine


class ProcessFailure(BaseModel):
    """A worker that died: torchrun's ChildFailedError table or the agent's "failed (exitcode" line."""

    rank: int | None = None
    local_rank: int | None = None
    exitcode: int | None = None
    signal: str | None = None  # "SIGABRT" when the traceback line says "Signal 6 (SIGABRT)"
    host: str | None = None
    pid: int | None = None
    root_cause: bool = False
    evidence: EvidenceLine


class Facts(BaseModel):
    """Everything the evidence reader understood about one evidence folder."""

    files: list[EvidenceFile] = Field(default_factory=list)
    skipped: list[SkippedFile] = Field(default_factory=list)
    ranks: list[int] = Field(default_factory=list)  # ranks that left any evidence
    world_size: int | None = None

    package_captures: list[PackageCapture] = Field(default_factory=list)
    env_captures: list[EnvCapture] = Field(default_factory=list)
    devices: list[Device] = Field(default_factory=list)
    driver_version: str | None = None
    cuda_version: str | None = None
    cann_version: str | None = None
    nccl_version: str | None = None
    topology: Topology | None = None
    accelerate_config: dict[str, object] = Field(default_factory=dict)

    collectives: list[CollectiveOp] = Field(default_factory=list)
    watchdog_timeouts: list[WatchdogTimeout] = Field(default_factory=list)
    mismatches: list[CollectiveMismatch] = Field(default_factory=list)
    nccl_transports: list[NcclTransport] = Field(default_factory=list)
    last_progress: dict[int, EvidenceLine] = Field(default_factory=dict)  # rank -> line
    suspicious: list[EvidenceLine] = Field(default_factory=list)  # errors, warnings, timeouts
    stacks: list[StackThread] = Field(default_factory=list)
    source_findings: list[SourceFinding] = Field(default_factory=list)
    notes: list[EvidenceLine] = Field(default_factory=list)  # the user's own words
    # (file, first line, last line) of ``` blocks in notes holding pasted logs, not words
    pasted: list[tuple[str, int, int]] = Field(default_factory=list)
    conflicts: list[str] = Field(default_factory=list)  # two captures disagree: said plainly
    process_failures: list[ProcessFailure] = Field(default_factory=list)
    torch_cuda_version: str | None = None  # "CUDA used to build PyTorch" (collect_env)

    def kinds(self) -> set[str]:
        return {f.kind for f in self.files}
