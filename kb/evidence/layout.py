"""Which rank each file is, decided from the whole folder before any file is read.

A file alone can mislead: torchrun's `--log-dir` names a node-local index (`attempt_0/3/`),
and Ascend splits one process across `debug/` and `run/` plogs of which only one opens with
the line that names the rank. Looking at the folder's paths, and at the heads of the few files
that can settle it, gives each file a `PathHints` that `ranks.file_rank` then weighs
against what the file's own lines say.
"""

from __future__ import annotations

import dataclasses

from kb.evidence.ansi import strip_ansi
from kb.evidence.inputs import InputFile
from kb.evidence.limits import Limits
from kb.evidence.ranks import PathHints, head_rank, path_hints, process_in_name

HEADS_PER_NODE = 16  # torchrun files whose heads are read to find where a node's ranks start


def file_hints(tasks: list[InputFile], limits: Limits) -> dict[str, PathHints]:
    """PathHints for every task, keyed by its display path."""
    hints = {t.display: path_hints(t.display) for t in tasks}
    _torchrun_log_dir(tasks, hints, limits)
    _one_process_many_files(tasks, hints, limits)
    return hints


def _said(t: InputFile, limits: Limits) -> tuple[int | None, str | None]:
    """`head_rank` of a file on disk; (None, None) for archive members, gzip and errors."""
    if t.fs_path is None or t.gz:
        return None, None
    try:
        with open(t.fs_path, "rb") as f:
            head = strip_ansi(f.read(limits.head_bytes)).decode("utf-8", "replace")
    except OSError:
        return None, None  # reported when the file itself is read
    return head_rank(head)


def _torchrun_log_dir(tasks: list[InputFile], hints: dict[str, PathHints], limits: Limits) -> None:
    """torchrun --log-dir: `<node>/…/attempt_0/<local_rank>/stdout.log` → global rank, as
    the node's first rank + local rank.

    A node's first rank is read from a file of that node whose lines carry torchrun's
    `[rankN]:` prefix (stderr usually does, stdout often not); for the other nodes it is
    node × processes per node, the count taken from such a file of a later node when there is
    one, else from the local ranks present (which undercounts when only some were copied)."""
    on_node: dict[int, list[InputFile]] = {}
    for t in tasks:
        h = hints[t.display]
        if h.local_rank is not None and h.node_index is not None and h.rank is None:
            on_node.setdefault(h.node_index, []).append(t)
    if not on_node:
        return
    first: dict[int, int] = {}
    for node, files in on_node.items():
        for t in files[:HEADS_PER_NODE]:
            rank, how = _said(t, limits)
            local = hints[t.display].local_rank
            if how == "launcher" and rank is not None and local is not None and rank >= local:
                first[node] = rank - local
                break
    nproc = 1 + max(hints[t.display].local_rank or 0 for files in on_node.values() for t in files)
    counted = True  # nproc only counts the local ranks present
    for node, start in sorted(first.items()):
        if node > 0 and start % node == 0 and start // node >= nproc:
            nproc, counted = start // node, False
            break
    for node, files in on_node.items():
        start = first.get(node, node * nproc)
        guessed = node > 0 and node not in first and counted
        for t in files:
            h = hints[t.display]
            hints[t.display] = dataclasses.replace(
                h, rank=start + (h.local_rank or 0), rank_guessed=guessed
            )


def _one_process_many_files(
    tasks: list[InputFile], hints: dict[str, PathHints], limits: Limits
) -> None:
    """Ascend writes one process's log to several files (`debug/plog/plog-<pid>_….log` and
    `run/plog/plog-<pid>_….log`, and rotations) and only one of them opens with the init entry
    that names the rank. Files of one pid on one node get the rank that one of them names."""
    groups: dict[tuple[str | None, str], list[InputFile]] = {}
    for t in tasks:
        pid = process_in_name(t.display)
        if pid is not None and t.fs_path is not None and not t.gz:
            groups.setdefault((hints[t.display].node, pid), []).append(t)
    for members in groups.values():
        if len(members) < 2:
            continue
        named = set()
        for t in members:
            rank, how = _said(t, limits)
            if how in ("content", "launcher"):
                named.add(rank)
        if len(named) == 1:
            rank = named.pop()
            for t in members:
                hints[t.display] = dataclasses.replace(hints[t.display], process_rank=rank)
