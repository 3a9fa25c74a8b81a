"""NCCL_DEBUG output: version, communicator init (pid → rank), transports, COLL traces, WARNs.

>>> from kb.evidence.sources.nccl import parse_channel
>>> parse_channel("node-a:4711:4790 [0] NCCL INFO Channel 01/0 : 1[1] -> 2[0] [receive] via NET/IB/0/GDRDMA")
(2, 1, 'NET/IB')
>>> parse_channel("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read")
(0, 1, 'P2P/CUMEM')
>>> parse_channel("h:1:2 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct")
(0, 1, 'SHM')
"""

from __future__ import annotations

import re
from typing import ClassVar

from kb.evidence.context import FileContext, Line
from kb.evidence.facts import Device, EnvCapture, NcclTransport
from kb.evidence.lazy_pattern import lazy
from kb.evidence.sources.base import LineSource
from kb.evidence.sources.collectives import CollectiveLog
from kb.evidence.sources.common import log_score, normalize_op

_VERSION = lazy(r"NCCL version (\d+\.\d+\.\d+)")
_CHANNEL = lazy(
    r"Channel \d+(?:/\d+)? : (\d+)\[[0-9a-fA-F]+\] -> (\d+)\[[0-9a-fA-F]+\]( \[(?:send|receive)\])? via (\S+)"
)
_COLL = lazy(r"NCCL INFO (\w+): opCount ([0-9a-fA-F]+) .*?count (\d+) datatype (\d+)")
_ENV = lazy(r"NCCL INFO ([A-Z][A-Z0-9_]+) set by environment to ([^\s.]+(?:\.\d+)*)")
_HEAD = lazy(r"NCCL (INFO|WARN|TRACE)|NCCL version \d|^#\s+Rank\s+\d+ Group\s+\d+ Pid", re.M)
# nccl-tests' device table: "#  Rank  0 Group  0 Pid  47853 on host device  0 [0x1a] NVIDIA …"
_TEST_DEVICE = lazy(
    r"#\s+Rank\s+(\d+)\s+Group\s+\d+\s+Pid\s+\d+\s+on\s+\S+\s+device\s+(\d+)\s+\[([0-9a-fA-Fx:.]+)\]\s+(.+?)\s*$"
)
DTYPES = {
    0: "int8", 1: "uint8", 2: "int32", 3: "uint32", 4: "int64", 5: "uint64",
    6: "float16", 7: "float32", 8: "float64", 9: "bfloat16", 10: "float8e4m3", 11: "float8e5m2",
}  # fmt: skip


def parse_channel(body: str) -> tuple[int, int, str] | None:
    """(rank, peer, transport) of a channel line; [receive] lines print the peer first."""
    m = _CHANNEL.search(body)
    if not m:
        return None
    a, b = int(m.group(1)), int(m.group(2))
    parts = m.group(4).split("/")
    transport = "/".join(parts[:2]) if parts[0] in ("P2P", "NET") else parts[0]
    if m.group(3) and "receive" in m.group(3):
        return b, a, transport
    return a, b, transport


class NcclSource(LineSource):
    name = "nccl"
    description = "NCCL_DEBUG=INFO/WARN/TRACE output"
    patterns: ClassVar[dict[str, tuple[str, bool]]] = {
        "version": (r"NCCL version \d+\.\d+\.\d+", False),
        "init": (r"comm 0x[0-9a-fA-F]+ rank \d+ n[Rr]anks \d+", False),
        "channel": (r"Channel \d+(/\d+)? : \d+\[[0-9a-fA-F]+\] -> \d+\[", False),
        "warn": (r"NCCL WARN", False),
        "coll": (r"NCCL INFO [A-Za-z]+: opCount [0-9a-fA-F]+ ", False),
        "env": (r"NCCL INFO [A-Z][A-Z0-9_]+ set by environment to", False),
        "test_device": (
            r"#\s+Rank\s+\d+\s+Group\s+\d+\s+Pid\s+\d+\s+on\s+\S+\s+device\s+\d+ ",
            False,
        ),
        "p2p": (r"P2P is disabled between|Could not enable P2P|P2P not supported between", False),
        "error": (
            r"NCCL error|ncclSystemError|ncclInternalError|ncclUnhandledCudaError|ncclRemoteError"
            r"|Got completion from peer .* with error \d+",  # an IB work request failed (after "Last error:")
            False,
        ),
    }

    raw_keys: ClassVar[frozenset[str]] = frozenset({"channel"})
    suspicious_keys: ClassVar[frozenset[str]] = frozenset({"warn", "p2p", "error"})

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._seen: set[tuple[int | None, int | None, str]] = set()
        self._seen_raw: set[bytes] = set()
        self._colls = CollectiveLog(self.ctx, self.name)
        self._env = EnvCapture(file=self.ctx.display)

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        return log_score(head, _HEAD)

    def skip(self, key: str, no: int, raw: bytes) -> bool:
        """Channel lines repeat for every channel and communicator; what follows the channel
        number (`3[3] -> 4[4] [send] via NET/IB/1`) decides the transport, so a repeat of it
        adds nothing."""
        at = raw.find(b" : ", raw.find(b"Channel "))
        if at < 0:
            return False
        tail = raw[at:]
        if tail in self._seen_raw:
            return True
        if len(self._seen_raw) < 4096:
            self._seen_raw.add(tail)
        return False

    def on_line(self, key: str, line: Line) -> None:
        body = line.body
        if key == "version":
            m = _VERSION.search(body)
            if m and self.ctx.facts.nccl_version is None:
                self.ctx.facts.nccl_version = m.group(1)
                self.ctx.facts.version_lines.append(self.ctx.evidence(line, self.name))
        elif key == "init":
            got = self.ctx.pid_ranks.learn(body)
            if got:
                self.ctx.world_sizes.add(got[1])
        elif key == "channel":
            parsed = parse_channel(body)
            if parsed:
                rank, peer, transport = parsed
                if (rank, peer, transport) not in self._seen:
                    self._seen.add((rank, peer, transport))
                    self.ctx.facts.nccl_transports.append(
                        NcclTransport(
                            rank=rank, peer=peer, transport=transport,
                            evidence=self.ctx.evidence(line, self.name),
                        )
                    )  # fmt: skip
        elif key == "coll":
            m = _COLL.search(body) if not self._colls.full() else None
            if m:
                dtype = DTYPES.get(int(m.group(4)), m.group(4))
                op, seq = normalize_op(m.group(1)), int(m.group(2), 16)
                self._colls.add(line, op, seq, int(m.group(3)), dtype)
        elif key == "env":
            m = _ENV.search(body)
            if m:
                self._env.variables[m.group(1)] = m.group(2)
                self._env.lines[m.group(1)] = line.no
        elif key == "test_device":
            m = _TEST_DEVICE.search(body)
            if m and len(self.ctx.facts.devices) < 1024:
                self.ctx.facts.devices.append(
                    Device(
                        index=int(m.group(1)),
                        model=m.group(4),
                        bus_id=m.group(3),
                        file=self.ctx.display,
                        line=line.no,
                    )
                )
        elif key in ("warn", "p2p", "error"):
            self.ctx.suspicious(line, self.name)

    def finish(self) -> None:
        self._colls.finish()
        if self._env.variables:
            self.ctx.facts.env_captures.append(self._env)
