"""Which rank (and node) a file or a line belongs to: from paths, line prefixes and content.

Precedence for a line: launcher prefix (`[rank1]:`) > rank written in the message
(`[Rank 1]`, `RankID:1`, `userRank[1]`, `rank[1]`) > the file's rank (from its path) >
NCCL `host:pid` joined to a `comm … rank N` init line > device ids (`deviceLogicId[1]`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kb.evidence.lazy_pattern import lazy

_PROCESS_FILE = lazy(r"(?:^|/)(?:plog|device)-(\d{1,9})_[^/]*$")
_PATH_RANK = lazy(r"(?:^|[^a-z])(?:rank|worker|device|proc)[-_.]?(\d{1,9})(?![\d])")
_PATH_NODE = lazy(r"^(?:node|host)[-_.]?(\d{1,9})$")
_ATTEMPT = lazy(r"^attempt_\d+$")


@dataclass(frozen=True)
class PathHints:
    rank: int | None = None
    node: str | None = None
    node_index: int | None = None
    local_rank: int | None = None  # torchrun --log-dir layout: rank only within its node
    process_rank: int | None = None  # named by another file of the same process (`plog-<pid>_`)
    rank_guessed: bool = False  # node × local ranks present + local: right only if all were copied


def process_in_name(display: str) -> str | None:
    """The pid in an Ascend log's file name (`plog-<pid>_<time>.log`, `device-<pid>_<time>.log`).

    >>> process_in_name("x.tar.gz!/node1/debug/plog/plog-4119_2025.log"), process_in_name("rank0.log")
    ('4119', None)
    """
    m = _PROCESS_FILE.search(display.replace("!/", "/"))
    return m.group(1) if m else None


def path_hints(display: str) -> PathHints:
    """Rank and node from a display path (archive members included).

    >>> path_hints("logs.tar.gz!/node1/rank3/train.log")
    PathHints(rank=3, node='node1', node_index=1, local_rank=None, process_rank=None, rank_guessed=False)
    >>> path_hints("run_ab12/attempt_0/2/stdout.log")
    PathHints(rank=None, node=None, node_index=None, local_rank=2, process_rank=None, rank_guessed=False)
    >>> path_hints("ascend/log/debug/device-1/device-1_2025.log").rank
    1
    >>> path_hints("worker_3.log").rank, path_hints("train_rank-2.txt").rank, path_hints("ranks.md").rank
    (3, 2, None)
    """
    parts = [p for p in re.split(r"!/|/", display) if p]
    rank = local = node_index = None
    node = None
    for i in range(len(parts) - 1, -1, -1):
        comp = parts[i].lower()
        if node is None:
            m = _PATH_NODE.match(comp)
            if m:
                node, node_index = parts[i], int(m.group(1))
        if rank is None and local is None:
            m = _PATH_RANK.search(comp)
            if m:
                rank = int(m.group(1))
            elif (
                comp.isdigit() and len(comp) <= 9 and i > 0 and _ATTEMPT.match(parts[i - 1].lower())
            ):
                local = int(comp)
    return PathHints(rank=rank, node=node, node_index=node_index, local_rank=local)


# `grep -H` (and `-n`, `-C`): `logs/rank3.log:1234:…`, `node1/worker-3.log: …`, `x.log-12-…`
# one greedy run per path component, so a long line of word characters costs linear time
# (a lazy-then-greedy pair here took 0.18 s on an 8 KB line and grew with its square)
_GREP = lazy(
    r"^((?:[\w.-]+/)*([\w.-]+)\.(?:log|txt|out|err|stdout|stderr))"
    r"(?::\d{1,9}:|-\d{1,9}-|:)\s?"
)
_LETTER = lazy(r"[A-Za-z]")
MAX_PREFIX = 4096  # a grep prefix is a path: longer lines are matched on their start
GREP_HINTS = (".log", ".txt", ".out", ".err", ".std")  # one is in every grep prefix


def grep_prefix(text: str) -> tuple[str, str] | None:
    """(path, rest) of a line pasted from `grep -H`, whose path says which file it is from.

    >>> grep_prefix("logs/rank3.log:1234:[rank3]: RuntimeError: boom")
    ('logs/rank3.log', '[rank3]: RuntimeError: boom')
    >>> grep_prefix("node1/worker-3.log: NCCL WARN x"), grep_prefix("see train.log for more")
    (('node1/worker-3.log', 'NCCL WARN x'), None)
    """
    m = _GREP.match(text[:MAX_PREFIX])
    if m is None or not _LETTER.search(m.group(2)):  # the file's name holds a letter
        return None
    return m.group(1), text[m.end() :]


_PREFIX = lazy(r"^\[([A-Za-z_]+?)(\d{1,9})\]:\s?")
_RAY = lazy(r"^\((\w+) pid=(\d{1,9})(?:, ip=[^)]*)?\)\s")


@dataclass
class Stripped:
    body: str
    rank: int | None = None  # from `[rankN]:`
    local_rank: int | None = None  # from `[default0]:` (torchrun --tee)
    pid: int | None = None  # from Ray's `(Worker pid=N)`


def strip_prefixes(text: str) -> Stripped:
    """Removes launcher prefixes, keeping what they say about the rank.

    >>> strip_prefixes("[default1]:[rank1]: RuntimeError: boom")
    Stripped(body='RuntimeError: boom', rank=1, local_rank=1, pid=None)
    >>> strip_prefixes("(RayTrainWorker pid=615, ip=10.0.0.6) host:615:7 [2] NCCL INFO x").pid
    615
    """
    out = Stripped(body=text)
    for _ in range(4):
        first = out.body[:1]  # each prefix has its own first character
        if first == "[":
            m = _PREFIX.match(out.body)
            if m is None:
                break
            if m.group(1).lower() == "rank":
                out.rank = int(m.group(2))
            else:
                out.local_rank = int(m.group(2))
            out.body = out.body[m.end() :]
        elif first == "(":
            m = _RAY.match(out.body)
            if m is None:
                break
            out.pid = int(m.group(2))
            out.body = out.body[m.end() :]
        else:
            break
    return out


_CONTENT_RANK = lazy(
    r"\[Rank (\d{1,9})\]|RankID:\s?(\d{1,9})|userRank\[(\d{1,9})\]|\brank\[(\d{1,9})\]|\[PG ID \d+ PG GUID \S+ Rank (\d{1,9})\]"
    r"|rankSize\[\d+\], rankId\[(\d{1,9})\]"  # HCCL's "groupRank information is …" of a failed task
)
_DEVICE_FIELDS = ("deviceLogicId", "deviceId", "localRank")
_NUMBER_CLOSE = lazy(r"(\d{1,9})\]")


def content_rank(body: str) -> int | None:
    """
    >>> content_rank("[Rank 3] Watchdog caught collective operation timeout")
    3
    >>> content_rank("[ERROR] 2025-10-24-11:18:29 (PID:2111667, Device:2, RankID:2) ERR02200 DIST")
    2
    >>> content_rank("Entry-HcclCommInitRootInfoInner:ranks[4], rank[2], rootinfo")
    2
    >>> content_rank("groupRank information is group:[g], user define information[], rankSize[16], rankId[13].")
    13
    """
    m = _CONTENT_RANK.search(body)
    if not m:
        return None
    return int(next(g for g in m.groups() if g is not None))


def bracket_field(text: str, name: str, *, word_start: bool = False) -> tuple[int, int] | None:
    """(position, number) of the first `name[123]` in `text`, found with `str.find`.

    Python's `re` tries every position when a pattern starts with `\\b` or an alternation;
    these lookups run on every HCCL entry line. With `word_start`, `name` must not be the end
    of a longer word (`count` is not found in `recvcount[7]`).

    >>> bracket_field("x, count[42], recvcount[7]", "count", word_start=True)
    (3, 42)
    >>> bracket_field("sendcount[3]", "count", word_start=True), bracket_field("count[x]", "count")
    (None, None)
    """
    needle = name + "["
    at = text.find(needle)
    while at >= 0:
        if not word_start or at == 0 or not (text[at - 1].isalnum() or text[at - 1] == "_"):
            m = _NUMBER_CLOSE.match(text, at + len(needle))
            if m:
                return at, int(m.group(1))
        at = text.find(needle, at + 1)
    return None


def device_rank(body: str) -> int | None:
    """The device id an Ascend line names (first of `deviceLogicId[..]`, `deviceId[..]`,
    `localRank[..]` by position).

    >>> device_rank("Entry-HcclAllReduce:tag[x], count[8], dataType[float32], streamId[5], deviceLogicId[1]")
    1
    >>> device_rank("localRank[3], deviceId[5]"), device_rank("deviceId[x]")
    (3, None)
    """
    found = [hit for name in _DEVICE_FIELDS if (hit := bracket_field(body, name))]
    return min(found)[1] if found else None


_NCCL_PREFIX = lazy(r"(?:^|\] )([\w.-]+):(\d{1,9}):(\d{1,9}) \[(\d{1,9})\] ")
_NCCL_INIT = lazy(r"comm 0x[0-9a-fA-F]+ rank (\d{1,9}) n[Rr]anks (\d{1,9})")


def nccl_pid(body: str) -> int | None:
    """
    >>> nccl_pid("[2025-03-12 10:01:02] node-a:4711:4801 [0] misc/socket.cc:58 NCCL WARN x")
    4711
    """
    m = _NCCL_PREFIX.search(body[:200])
    return int(m.group(2)) if m else None


class PidRanks:
    """pid → global rank from NCCL init lines; the communicator with most ranks wins."""

    def __init__(self) -> None:
        self._best: dict[int, tuple[int, int]] = {}

    def learn(self, body: str) -> tuple[int, int] | None:
        """Records `comm 0x.. rank R nranks N`; returns (rank, nranks) when the line has one."""
        m = _NCCL_INIT.search(body)
        pid = nccl_pid(body)
        if not m:
            return None
        rank, nranks = int(m.group(1)), int(m.group(2))
        if pid is not None:
            old = self._best.get(pid)
            if old is None or nranks > old[1]:
                self._best[pid] = (rank, nranks)
        return rank, nranks

    def get(self, pid: int | None) -> int | None:
        if pid is None:
            return None
        hit = self._best.get(pid)
        return hit[0] if hit else None

    def items(self) -> dict[int, int]:
        return {pid: rv[0] for pid, rv in self._best.items()}


_ISO = lazy(r"(\d{4}-\d{2}-\d{2}[ T_-]\d{2}:\d{2}:\d{2}(?:[.,:]\d+)*)")
_GLOG = lazy(r"\[[EWIF](\d{3,4}) (\d{2}:\d{2}:\d{2}\.\d+)")


def timestamp(body: str) -> str | None:
    """The first timestamp on a line, as written (glog's MMDD is spelled out).

    >>> timestamp("[rank3]:[E709 17:05:38.162555850 ProcessGroupNCCL.cpp:632] x")
    '07-09 17:05:38.162555850'
    >>> timestamp("[ERROR] HCCL(1,a):2025-10-24-11:18:29.597.044 [t.cc:9] [1]x")
    '2025-10-24-11:18:29.597.044'
    """
    head = body[:400]
    if ":" not in head:  # both formats have one
        return None
    dash = head.find("-")  # an ISO date starts four digits before its first dash
    m = _ISO.search(head, max(0, dash - 4)) if dash >= 0 else None
    if m:
        return m.group(1)
    m = _GLOG.search(head)
    if m:
        mmdd = m.group(1).zfill(4)
        return f"{mmdd[:2]}-{mmdd[2:]} {m.group(2)}"
    return None


def head_rank(head: str) -> tuple[int | None, str | None]:
    """What the head's lines say about the file's rank, and how they say it.

    - "launcher": every `[rankN]:` prefix names the same N (torchrun's global rank: it beats
      a rank read from the path, which may be a node-local index);
    - "several": prefixes, or NCCL init lines of several processes, name several ranks: a
      console of many ranks, whatever the path says;
    - "content": messages name one rank (`[Rank 2]`, `RankID:2`, `rank[2]`);
    - "device": only an Ascend device id (one process, one device; a rank only on one node).

    >>> head_rank("[rank2]: x\\n[Rank 2] y"), head_rank("[rank2]: x\\n[rank3]: y")
    ((2, 'launcher'), (None, 'several'))
    >>> head_rank("[Rank 2] Watchdog caught…"), head_rank("[Rank 2] a\\n[Rank 3] b")
    ((2, 'content'), (None, None))
    >>> head_rank("Entry-HcclAllReduce: count[8], deviceId[5]\\n[INFO] HCCL(1,python): x")
    (5, 'device')
    >>> head_rank("h:7:7 [0] NCCL INFO comm 0x1 rank 24 nranks 32\\nh:8:8 [1] NCCL INFO comm 0x2 rank 25 nranks 32")
    (None, 'several')
    """
    launcher: set[int] = set()
    seen: set[int] = set()
    devices: set[int] = set()
    nccl = PidRanks()
    for raw in head.splitlines()[:200]:
        s = strip_prefixes(raw)
        if s.rank is not None:
            launcher.add(s.rank)
        r = s.rank if s.rank is not None else content_rank(s.body)
        if r is not None:
            seen.add(r)
        elif "Id[" in s.body or "localRank[" in s.body:
            d = device_rank(s.body)
            if d is not None:
                devices.add(d)
        elif " rank " in s.body:
            nccl.learn(s.body)
    if len(launcher) == 1:
        return next(iter(launcher)), "launcher"
    if len(launcher) > 1 or len(set(nccl.items().values())) > 1:
        return None, "several"
    if seen:
        return (seen.pop(), "content") if len(seen) == 1 else (None, None)
    return (devices.pop(), "device") if len(devices) == 1 else (None, None)
