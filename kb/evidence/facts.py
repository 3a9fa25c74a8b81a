"""Typed facts extracted from an evidence folder.

Sources (one module per kind of evidence under `kb.evidence.sources`) fill these models;
the matcher (`kb.match`) only ever reads them. Every fact that came from a line keeps an
`EvidenceLine` so a verdict can show the file, line number, rank and the line itself.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field

from kb.evidence.attribution import RankFrom

# Plain dataclasses, not pydantic models: every value is built by our own sources from types we
# already checked, tens of thousands per folder, and `kb evidence` must start in a fraction of a
# second; pydantic's import and schema building alone took longer than reading a small folder.


@dataclass(kw_only=True)
class EvidenceLine:
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


@dataclass(kw_only=True)
class EvidenceFile:
    """A file that was read, how it was classified and which rank it belongs to."""

    path: str
    kind: str  # source name from the registry, e.g. "nccl", "pip-freeze", "text-log"
    rank: int | None = None
    # the clue that decided the rank (kb.evidence.attribution.RankFrom, a str: JSON shows
    # "path", "path-guess", "launcher", "content", "nccl-init", "process" or "device")
    rank_from: RankFrom | None = None
    node: str | None = None
    size: int = 0
    lines: int = 0


@dataclass(kw_only=True)
class SkippedFile:
    path: str
    reason: str  # binary, unreadable, too large, bad encoding, unsafe archive member, ...


@dataclass(kw_only=True)
class PackageCapture:
    """One package listing (pip freeze, pip list, conda list, collect_env, accelerate env)."""

    file: str
    tool: str
    packages: dict[str, str] = field(default_factory=dict)  # normalized name -> version
    lines: dict[str, int] = field(default_factory=dict)  # normalized name -> line number


@dataclass(kw_only=True)
class EnvCapture:
    file: str
    variables: dict[str, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)


@dataclass(kw_only=True)
class Device:
    index: int | None = None
    kind: str = "gpu"  # gpu | npu
    model: str
    memory_mb: int | None = None
    bus_id: str | None = None
    file: str = ""
    line: int = 0
    reported: bool = False  # named in the user's words, not listed by a tool


@dataclass(kw_only=True)
class Topology:
    """`nvidia-smi topo -m`: link type for each ordered pair of GPU names."""

    file: str = ""
    devices: list[str] = field(default_factory=list)  # "GPU0", "GPU1", ...
    links: dict[str, str] = field(default_factory=dict)  # "GPU0,GPU1" -> "PHB"
    lines: dict[str, int] = field(default_factory=dict)  # "GPU0" -> line of that matrix row


@dataclass(kw_only=True)
class CollectiveOp:
    """One collective as logged by HCCL entry logs, DETAIL mode or NCCL traces."""

    rank: int
    op: str  # normalized lower-case: allreduce, broadcast, allgather, ...
    seq: int | None = None
    count: int | None = None
    dtype: str | None = None
    evidence: EvidenceLine | None = None  # kept for the first and last few ops of each rank
    file: str = ""  # where every op was logged, evidence line or not
    line: int = 0


@dataclass(kw_only=True)
class WatchdogTimeout:
    rank: int | None
    op: str
    seq: int | None = None
    timeout_ms: int | None = None
    elapsed_ms: int | None = None
    evidence: EvidenceLine


@dataclass(kw_only=True)
class QueuePosition:
    """Where a rank's collective queue stood when the watchdog fired (PyTorch >= 2.2:
    "last enqueued work: 55487, last completed work: 55484"); ranks whose positions differ
    issued different numbers of collectives."""

    rank: int | None
    failed_at: int | None = None
    last_enqueued: int
    last_completed: int | None = None
    evidence: EvidenceLine


@dataclass(kw_only=True)
class CollectiveMismatch:
    """PyTorch's "Detected mismatch between collectives on ranks" and its kin."""

    rank_a: int | None = None
    op_a: str | None = None
    rank_b: int | None = None
    op_b: str | None = None
    evidence: EvidenceLine


@dataclass(kw_only=True)
class StackFrame:
    function: str
    file: str
    line: int | None = None


@dataclass(kw_only=True)
class StackThread:
    rank: int | None = None
    pid: int | None = None
    thread: str = ""
    frames: list[StackFrame] = field(default_factory=list)  # innermost first
    evidence: EvidenceLine


@dataclass(kw_only=True)
class SourceFinding:
    """A pattern found in a training script, e.g. a barrier inside `if is_main_process:`."""

    finding: str  # collective-in-main-only-branch | save-in-main-only-branch | call
    call: str
    guard: str = ""
    evidence: EvidenceLine


@dataclass(kw_only=True)
class NcclTransport:
    rank: int | None
    peer: int | None
    transport: str  # P2P/IPC, P2P/CUMEM, SHM, NET/IB, NET/Socket, ...
    evidence: EvidenceLine


@dataclass(kw_only=True)
class ProcessFailure:
    """A worker that died: torchrun's ChildFailedError table or the agent's "failed (exitcode" line."""

    rank: int | None = None
    local_rank: int | None = None
    exitcode: int | None = None
    signal: str | None = None  # "SIGABRT" when the traceback line says "Signal 6 (SIGABRT)"
    host: str | None = None
    pid: int | None = None
    root_cause: bool = False  # in the report's "Root Cause" section, not "Failures:"
    time: str | None = None  # the report's `time`, as printed: "2025-07-09_17:06:01"
    error_file: str | None = None  # the worker's error.json; None where the report says <N/A>
    # one line: "Signal 6 (SIGABRT) received by PID 4712", or the exception that ends the
    # worker's traceback ("RuntimeError: …") when it wrote an error file
    traceback: str | None = None
    evidence: EvidenceLine


@dataclass(kw_only=True)
class Sighting:
    """One capture's value of something, and where it says so."""

    value: str
    file: str
    line: int = 0  # 0: the file as a whole (a version parsed from a table)

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


@dataclass(kw_only=True)
class Disagreement:
    """Captures that disagree on one thing, kept as an A/B: each file with the value it says
    ("node0.log says 2.18.1, node1.log says 2.19.3"), so a case can read which is which."""

    what: str  # "nccl version", "package torch", "env NCCL_P2P_DISABLE"
    sightings: list[Sighting] = field(default_factory=list)

    def sentence(self) -> str:
        return f"{self.what}: " + ", ".join(f"{s.where} says {s.value}" for s in self.sightings)


@dataclass(kw_only=True)
class Facts:
    """Everything the evidence reader understood about one evidence folder."""

    files: list[EvidenceFile] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)  # ranks that left any evidence
    world_size: int | None = None

    package_captures: list[PackageCapture] = field(default_factory=list)
    env_captures: list[EnvCapture] = field(default_factory=list)
    devices: list[Device] = field(default_factory=list)
    driver_version: str | None = None
    cuda_version: str | None = None
    cann_version: str | None = None
    nccl_version: str | None = None
    topology: Topology | None = None
    accelerate_config: dict[str, object] = field(default_factory=dict)

    collectives: list[CollectiveOp] = field(default_factory=list)
    watchdog_timeouts: list[WatchdogTimeout] = field(default_factory=list)
    queue_positions: list[QueuePosition] = field(default_factory=list)
    mismatches: list[CollectiveMismatch] = field(default_factory=list)
    nccl_transports: list[NcclTransport] = field(default_factory=list)
    last_progress: dict[int, EvidenceLine] = field(default_factory=dict)  # rank -> line
    suspicious: list[EvidenceLine] = field(default_factory=list)  # errors, warnings, timeouts
    stacks: list[StackThread] = field(default_factory=list)
    source_findings: list[SourceFinding] = field(default_factory=list)
    notes: list[EvidenceLine] = field(default_factory=list)  # the user's own words
    # (file, first line, last line) of ``` blocks in notes holding pasted logs, not words
    pasted: list[tuple[str, int, int]] = field(default_factory=list)
    # (file, first line, last line) of every ``` block in notes, code too: not the user's words
    fenced: list[tuple[str, int, int]] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)  # two captures disagree: said plainly
    process_failures: list[ProcessFailure] = field(default_factory=list)
    torch_cuda_version: str | None = None  # "CUDA used to build PyTorch" (collect_env)
    # the lines that printed a version read from a log (`NCCL version 2.19.3+cuda12.3`), so a
    # verdict about a release can show where its version came from
    version_lines: list[EvidenceLine] = field(default_factory=list)
    # captures that disagree (two NCCL versions…), each value with its file: an A/B
    disagreements: list[Disagreement] = field(default_factory=list)

    def kinds(self) -> set[str]:
        return {f.kind for f in self.files}


def dump_json(obj: object, indent: int | None = None) -> str:
    """A fact tree (facts, bundles) as JSON; integer keys (ranks) become strings."""
    return json.dumps(dataclasses.asdict(obj), indent=indent, ensure_ascii=False)  # type: ignore[call-overload]
