"""Which rank a whole file is: one decision, from one set of clues, recorded with the clue
that decided it.

The clues are the file's path (`PathHints`, folder layout included), what its first lines
say (`ranks.head_rank`) and, once its lines are read, the ranks they name themselves and the
ranks NCCL's init lines give its processes. `decide_rank` runs before the lines are read
(the file's rank attributes every line that names none) and again after, with what they said.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import Enum

from kb.evidence.ranks import PathHints


class RankFrom(str, Enum):
    """The clue that decided a file's rank; its value is what `kb evidence --format json`
    prints as `rank_from`."""

    PATH = "path"  # the path names the rank (rank3/, worker_3.log)
    PATH_GUESS = "path-guess"  # torchrun --log-dir: node × the local ranks present + local
    LAUNCHER = "launcher"  # every `[rankN]:` prefix of the head names one N, no rank in the path
    CONTENT = "content"  # a prefix or a message names it (and beats a node-local path index)
    NCCL_INIT = "nccl-init"  # NCCL's `comm … rank N` line for the file's one process
    PROCESS = "process"  # another file of the same process names it (`plog-<pid>_`)
    DEVICE = "device"  # an Ascend device id: a rank only within one node

    def __str__(self) -> str:
        return self.value


@dataclass
class RankClues:
    """Everything a file's rank is decided from."""

    display: str
    hints: PathHints
    said: int | None = None  # `head_rank`: the rank the head's lines say
    how: str | None = None  # and how: launcher, several, content, device or None
    head_failed: bool = False  # a hostile number in the head: the head and path name no rank
    lines_read: bool = False
    line_ranks: Counter[int] = field(default_factory=Counter)  # ranks lines named themselves
    process_ranks: set[int] = field(default_factory=set)  # NCCL init: the processes' ranks


@dataclass(frozen=True)
class RankDecision:
    rank: int | None
    source: RankFrom | None
    conflict: str | None = None  # the path and the lines disagree, in a sentence


def decide_rank(clues: RankClues) -> RankDecision:
    """The file's rank: from the path and its head, then, once its lines are read, from what
    they say (several ranks: a console, no file rank unless the path names one)."""
    first = RankDecision(None, None) if clues.head_failed else _from_path_and_head(clues)
    if not clues.lines_read:
        return first
    rank, source = first.rank, first.source
    explicit = [r for r, _ in clues.line_ranks.most_common()]
    if len(explicit) > 1:
        if source is not RankFrom.PATH or clues.hints.rank is None:  # a console of several ranks
            rank = source = None
    elif rank is None and len(explicit) == 1:
        rank, source = explicit[0], RankFrom.CONTENT
    if rank is None and not explicit and len(clues.process_ranks) == 1:
        rank, source = next(iter(clues.process_ranks)), RankFrom.NCCL_INIT  # NCCL_DEBUG_FILE
    return RankDecision(rank, source, first.conflict)


def _from_path_and_head(clues: RankClues) -> RankDecision:
    """Before the lines: the path, unless the head's `[rankN]:` prefixes say otherwise.
    "process": another file of the same process named it (a debug plog whose init entry is
    in the run plog)."""
    hints, said, how, display = clues.hints, clues.said, clues.how, clues.display
    path = hints.rank if hints.rank is not None else hints.local_rank
    if path is None:
        if how in (None, "device") and hints.process_rank is not None:
            return RankDecision(hints.process_rank, RankFrom.PROCESS)
        return RankDecision(said, None if how in (None, "several") else RankFrom(how))
    if how == "launcher" and said != path:
        if hints.rank is None:  # a node-local index (torchrun --log-dir) is no contradiction
            return RankDecision(said, RankFrom.CONTENT)
        return RankDecision(
            said,
            RankFrom.CONTENT,
            (
                f"{display}: the path says rank {path} but its lines say rank {said} "
                f"([rank{said}]: prefixes); rank {said} is used"
            ),
        )
    if how == "several":
        which = "rank" if hints.rank is not None else "local rank"
        return RankDecision(
            None,
            None,
            (
                f"{display}: the path says {which} {path} but its lines come from several ranks; "
                "each line keeps the rank it names"
            ),
        )
    return RankDecision(path, RankFrom.PATH_GUESS if hints.rank_guessed else RankFrom.PATH)
