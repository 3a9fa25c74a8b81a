"""Merges per-file results into one Facts, and says plainly where captures disagree."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Callable

from kb.evidence.facts import Disagreement, EvidenceLine, Facts, Sighting
from kb.evidence.ranks import process_in_name

ENV_PREFIXES = ("NCCL_", "TORCH_", "CUDA_", "HCCL_", "ASCEND_")

# Set by the reader for the whole bundle, not merged from a file's facts.
READER_FIELDS = ("files", "skipped", "ranks", "world_size")

Merge = Callable[[Facts, Facts, str, str, str], None]  # (total, part, field, kind, origin)


def _extend(total: Facts, part: Facts, name: str, kind: str, origin: str) -> None:
    getattr(total, name).extend(getattr(part, name))


def _first_or_conflict(total: Facts, part: Facts, name: str, kind: str, origin: str) -> None:
    """A version: the first one wins; a different later one is an A/B, said with the file
    (and line) of each value and kept in `disagreements`. The first value's file is the one
    whose version line printed it (lists merge first, so it is in the total already)."""
    new, old = getattr(part, name), getattr(total, name)
    if new is None:
        return
    if old is None:
        setattr(total, name, new)
        return
    label = name.replace("_", " ")
    ab = next((d for d in total.disagreements if d.what == label), None)
    seen = Sighting(value=new, file=origin, line=_printed_at(part.version_lines, new, origin))
    if old == new:
        if ab is not None:  # a third capture agreeing with the first: one more sighting
            ab.sightings.append(seen)
        return
    first = next((ev for ev in total.version_lines if old in ev.text and ev.file != origin), None)
    if first is None:  # a version no line printed (a table, facts built by hand)
        total.conflicts.append(f"{label} is {old} elsewhere but {new} in {origin}")
        return
    if ab is None:
        ab = Disagreement(
            what=label, sightings=[Sighting(value=old, file=first.file, line=first.line)]
        )
        total.disagreements.append(ab)
    ab.sightings.append(seen)
    total.conflicts.append(f"{label}: {ab.sightings[0].where} says {old}, {seen.where} says {new}")


def _printed_at(lines: list[EvidenceLine], value: str, origin: str) -> int:
    """The line of `origin` that printed `value`, 0 when none did."""
    return next((ev.line for ev in lines if ev.file == origin and value in ev.text), 0)


def _first(total: Facts, part: Facts, name: str, kind: str, origin: str) -> None:
    if getattr(part, name) is not None and getattr(total, name) is None:
        setattr(total, name, getattr(part, name))


def _accelerate_config(total: Facts, part: Facts, name: str, kind: str, origin: str) -> None:
    """The config file itself beats the copy `accelerate env` prints."""
    if part.accelerate_config and (not total.accelerate_config or kind == "accelerate-config"):
        total.accelerate_config = part.accelerate_config


def _latest_progress(total: Facts, part: Facts, name: str, kind: str, origin: str) -> None:
    """Per rank, the later progress line (a line without a time replaces the one before)."""
    for rank, ev in part.last_progress.items():
        old_ev = total.last_progress.get(rank)
        if old_ev is None or not (
            ev.timestamp and old_ev.timestamp and ev.timestamp < old_ev.timestamp
        ):
            total.last_progress[rank] = ev


_SPECIAL: dict[str, Merge] = {
    "topology": _first,
    "accelerate_config": _accelerate_config,
    "last_progress": _latest_progress,
}


def _rule(f: dataclasses.Field[object]) -> Merge | None:
    """How a field of Facts merges, from its name or its type; a field no rule covers is
    an error as soon as this module is imported (a new field cannot silently escape)."""
    if f.name in READER_FIELDS:
        return None
    if f.name in _SPECIAL:
        return _SPECIAL[f.name]
    if f.default_factory is list:
        return _extend
    if f.default is None and f.type == "str | None":
        return _first_or_conflict
    raise TypeError(f"Facts.{f.name} has no merge rule: add one in kb/evidence/merge.py")


# lists first (a file's own conflicts come before the ones merging finds), then the rest
_RULED = [(f.name, rule) for f in dataclasses.fields(Facts) if (rule := _rule(f)) is not None]
RULES: list[tuple[str, Merge]] = sorted(_RULED, key=lambda item: item[1] is not _extend)


def merge_into(total: Facts, part: Facts, kind: str, origin: str) -> None:
    """Adds one file's facts to the total, field by field (`RULES`)."""
    for name, rule in RULES:
        rule(total, part, name, kind, origin)


def _same_version(a: str, b: str) -> bool:
    """'2.1.0+cu121' and '2.1.0' are the same release; anything unparsable compares as text."""
    from packaging.version import InvalidVersion, Version  # only when two captures differ

    try:
        return Version(a).public == Version(b).public
    except InvalidVersion:
        return a == b


def package_conflicts(facts: Facts) -> list[str]:
    """One sentence per package whose version differs between two captures.

    >>> from kb.evidence.facts import PackageCapture
    >>> f = Facts(package_captures=[
    ...     PackageCapture(file="pip.txt", tool="pip-freeze", packages={"accelerate": "1.0.1"}, lines={"accelerate": 3}),
    ...     PackageCapture(file="env.txt", tool="accelerate-env", packages={"accelerate": "0.28.0"}, lines={"accelerate": 1})])
    >>> package_conflicts(f)
    ['accelerate is 1.0.1 in pip.txt:3 (pip-freeze) but 0.28.0 in env.txt:1 (accelerate-env)']
    """
    seen: dict[str, tuple[str, str]] = {}
    out: list[str] = []
    reported: set[tuple[str, str, str]] = set()
    for cap in facts.package_captures:
        for name, version in cap.packages.items():
            where = f"{cap.file}:{cap.lines.get(name, 0)} ({cap.tool})"
            if name not in seen:
                seen[name] = (version, where)
                continue
            first, first_where = seen[name]
            if not _same_version(first, version) and (name, first, version) not in reported:
                reported.add((name, first, version))
                out.append(f"{name} is {first} in {first_where} but {version} in {where}")
    return out


def capture_disagreements(facts: Facts) -> list[Disagreement]:
    """Package versions and distributed-training variables two captures give differently,
    as A/Bs: every capture of the package or variable with the value it says.

    >>> from kb.evidence.facts import EnvCapture
    >>> f = Facts(env_captures=[EnvCapture(file="a.env", variables={"NCCL_P2P_DISABLE": "1"},
    ...     lines={"NCCL_P2P_DISABLE": 4}), EnvCapture(file="b.env", variables={"NCCL_P2P_DISABLE": "0"})])
    >>> [d.sentence() for d in capture_disagreements(f)]
    ['env NCCL_P2P_DISABLE: a.env:4 says 1, b.env says 0']
    """
    seen: dict[str, list[Sighting]] = defaultdict(list)
    for cap in facts.package_captures:
        if cap.tool == "notes":
            continue  # the user's words are no capture (see notes.py)
        for name, version in cap.packages.items():
            line = cap.lines.get(name, 0)
            seen[f"package {name}"].append(Sighting(value=version, file=cap.file, line=line))
    for env in facts.env_captures:
        for name, value in env.variables.items():
            if name.startswith(ENV_PREFIXES):
                line = env.lines.get(name, 0)
                seen[f"env {name}"].append(Sighting(value=value, file=env.file, line=line))
    out = []
    for what, sightings in seen.items():
        first = sightings[0].value
        same = _same_version if what.startswith("package ") else str.__eq__
        if any(not same(first, s.value) for s in sightings[1:]):
            out.append(Disagreement(what=what, sightings=sightings))
    return out


def env_conflicts(facts: Facts) -> list[str]:
    """Distributed-training variables set differently in two environment captures."""
    values: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for cap in facts.env_captures:
        for name, value in cap.variables.items():
            if name.startswith(ENV_PREFIXES):
                values[name][value].append(cap.file)
    out = []
    for name, by_value in sorted(values.items()):
        if len(by_value) > 1:
            parts = [f"{v!r} in {', '.join(files[:3])}" for v, files in by_value.items()]
            out.append(f"{name} differs between captures: " + "; ".join(parts))
    return out


def device_rank_conflicts(facts: Facts) -> list[str]:
    """Files whose rank is only an Ascend device id, where that id names several processes
    (other nodes, or other pids in `plog-<pid>_…` names): device ids repeat on every node,
    so those files may be different ranks that merely share a device number. Said, not
    guessed: the HCCL init entry (`Entry-HcclCommInit…: ranks[N], rank[R]`) gives the rank.

    >>> from kb.evidence.facts import EvidenceFile
    >>> f = Facts(files=[EvidenceFile(path=f"n{i}/plog-{40 + i}_1.log", kind="plog", rank=7,
    ...                               rank_from="device") for i in (1, 2)])
    >>> device_rank_conflicts(f)  # doctest: +NORMALIZE_WHITESPACE
    ['rank 7 of n1/plog-41_1.log, n2/plog-42_1.log is a device id, not a global rank: 2
      processes use device 7; their init entry (rank[..]) was not in these files']
    """
    by_device: dict[int, list[tuple[str, tuple[str | None, str | None]]]] = defaultdict(list)
    for f in facts.files:
        if f.rank_from == "device" and f.rank is not None:
            by_device[f.rank].append((f.path, (f.node, process_in_name(f.path))))
    out = []
    for device, found in sorted(by_device.items()):
        processes = {who for _, who in found}
        if len(processes) > 1:
            paths = sorted(p for p, _ in found)
            shown = ", ".join(paths[:4]) + (f" and {len(paths) - 4} more" if len(paths) > 4 else "")
            out.append(
                f"rank {device} of {shown} is a device id, not a global rank: "
                f"{len(processes)} processes use device {device}; "
                "their init entry (rank[..]) was not in these files"
            )
    return out


def collect_ranks(facts: Facts) -> list[int]:
    ranks: set[int] = {f.rank for f in facts.files if f.rank is not None}
    evs: list[EvidenceLine] = [*facts.suspicious, *facts.last_progress.values()]
    evs += [w.evidence for w in facts.watchdog_timeouts]
    ranks.update(ev.rank for ev in evs if ev.rank is not None and ev.rank >= 0)
    ranks.update({c.rank for c in facts.collectives if c.rank >= 0})
    return sorted(ranks)
