"""An evidence folder as the JSON lines a log shipper would send: one record per line.

A shipper (Promtail, Fluent Bit, Filebeat) tags each line with the job, the host and the
file it came from; the rank comes from the file, as a launcher's `--log-dir` layout names
it. The kind of file and its rank are kb's own reading (`read_evidence`), and small pasted
files are unwrapped as kb unwraps them, so a record's `line_number` and `line` are the
ones `kb diagnose` shows. Lines of a person's notes inside a ``` block are sent as kind
`pasted` (tool output), the rest of the notes as kind `notes`, and what a line of notes
quotes in `backticks` once more as `pasted`, since kb reads that as tool output too.

Records carry no clock of their own: the shipper stamps each line at ingestion, here a
fixed start plus one millisecond per line in reading order, so correlations over a job's
time span see every line of the job.
"""

from __future__ import annotations

import datetime as dt
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kb.evidence.archives import iter_archive
from kb.evidence.bounded import InflateBudget
from kb.evidence.facts import SkippedFile
from kb.evidence.filereader import UNWRAP_MAX
from kb.evidence.inputs import InputFile, is_archive, walk
from kb.evidence.limits import Limits
from kb.evidence.reader import read_evidence
from kb.evidence.registry import SOURCES
from kb.evidence.selection import quoted_parts
from kb.evidence.sources.base import WholeFileSource
from kb.evidence.unwrap import unwrap
from kb.export import fields as f

START = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
MAX_FILE_BYTES = 64 << 20  # a record set is for tests and replays, not for terabytes


@dataclass(frozen=True)
class FileInfo:
    kind: str
    rank: int | None
    host: str | None


def _files(root: Path) -> tuple[dict[str, FileInfo], set[tuple[str, int]]]:
    bundle = read_evidence(root)
    info = {e.path: FileInfo(e.kind, e.rank, e.node) for e in bundle.facts.files}
    pasted = {
        (path, n) for path, first, last in bundle.facts.pasted for n in range(first, last + 1)
    }
    return info, pasted


def _inputs(root: Path, skipped: list[SkippedFile]) -> Iterator[InputFile]:
    budget = InflateBudget(Limits())
    for task in walk(root, skipped):
        task.budget = budget
        if is_archive(task.display):
            yield from iter_archive(task, budget, skipped)
        else:
            yield task


def _lines(task: InputFile, kind: str) -> list[bytes]:
    stream = task.open()
    try:
        data = stream.read(MAX_FILE_BYTES)
    finally:
        stream.close()
    if len(data) <= UNWRAP_MAX and not issubclass(SOURCES[kind], WholeFileSource):
        data = unwrap(data)
    return io.BytesIO(data).read().splitlines()


def records(root: Path, job: str) -> Iterator[dict[str, Any]]:
    """Every line of every file kb read in `root`, in reading order; unread files are left out
    as kb leaves them out (binary, too large, outside the root)."""
    info, pasted = _files(root)
    skipped: list[SkippedFile] = []
    tick = 0
    for task in _inputs(root, skipped):
        meta = info.get(task.display)
        if meta is None:
            continue
        try:
            lines = _lines(task, meta.kind)
        except OSError:
            continue  # kb read it a moment ago; a file that vanished since is not shipped
        for number, raw in enumerate(lines, 1):
            kind = f.PASTED if (task.display, number) in pasted else meta.kind
            text = raw.decode("utf-8", "replace")
            sent = [(text, kind)]
            if kind == "notes":
                # kb reads what the notes quote as tool output: sent again, as `pasted`
                sent += [(part, f.PASTED) for part in quoted_parts(text) if part.strip()]
            for line, line_kind in sent:
                tick += 1
                yield {
                    f.TIMESTAMP: (START + dt.timedelta(milliseconds=tick)).isoformat(),
                    f.HOST: meta.host or "host-1",
                    f.JOB: job,
                    f.RANK: meta.rank,
                    f.FILE: task.display,
                    f.LINE_NUMBER: number,
                    f.LINE: line,
                    f.KIND: line_kind,
                }


def write_jsonl(root: Path, job: str, out: Path) -> int:
    n = 0
    with out.open("w", encoding="utf-8") as handle:
        for record in records(root, job):
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            n += 1
    return n
