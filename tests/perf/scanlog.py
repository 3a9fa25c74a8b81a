"""Scan a small log held in memory, in chunks, so a long line goes through the engine's
stream mode: the hits of every line, as the tests of shared and split patterns compare them."""

from __future__ import annotations

import io

from kb.scan.engine import PatternSet, scan_stream

CHUNK = 1024


def scan_log(
    log: bytes, ps: PatternSet, muted: set[int] | None = None
) -> list[tuple[int, list[int]]]:
    got: list[tuple[int, list[int]]] = []
    scan_stream(
        io.BytesIO(log),
        ps,
        lambda no, _raw, ids: got.append((no, ids)),
        chunk_size=CHUNK,
        muted=muted,
    )
    return got
