"""Bounds on what the reader will inflate, read and keep, so hostile input cannot exhaust memory."""

from __future__ import annotations

from dataclasses import dataclass

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB


@dataclass(frozen=True)
class Limits:
    """Every limit the reader enforces; the defaults suit a laptop reading a user's log folder.

    >>> Limits().total_inflated // GIB
    2
    """

    total_inflated: int = 2 * GIB  # bytes decompressed across all .gz files and archive members
    member_inflated: int = 1 * GIB  # bytes decompressed for one member or one .gz file
    max_ratio: int = 200  # inflated/compressed above this (past `ratio_floor`) is a bomb
    ratio_floor: int = 16 * MIB  # ratio check only applies after this many inflated bytes
    head_bytes: int = 8 * KIB  # sniffed for classification, binary and encoding checks
    bad_encoding_ratio: float = (
        0.05  # share of U+FFFD in the decoded head that means "bad encoding"
    )
    whole_file_max: int = (
        4 * MIB
    )  # whole-file sources (pip freeze, nvidia-smi...) read at most this
    hits_per_file: int = 50  # EvidenceLine kept per pattern key and file
    suspicious_per_file: int = 400  # error/warning lines kept per file: the first and last halves
    collectives_per_file: int = 200_000  # collective ops kept per file (sequences must stay whole)
    parallel_threshold: int = 64 * MIB  # total input size above which files are read in parallel
    stdin_max: int = 1 * GIB  # bytes buffered from standard input
