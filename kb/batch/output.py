"""Writing a batch's rows (JSON lines or Parquet) and the summary of the fleet's top causes.

Rows are streamed as jobs finish (`RowStream`: one JSON line each, flushed to disk), so
Ctrl-C, a crash of the driver or a lost node keeps every finished row; the final file (rows
in job order, or Parquet) is written from them at the end, and `--resume` reads them back.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import IO, Any

from kb.batch.rows import COLUMNS, FAILED, NO_MATCH

PARQUET_HINT = "pip install 'distkb[ray]' (pyarrow writes Parquet)"


def _line(row: dict[str, Any]) -> str:
    return json.dumps({c: row.get(c) for c in COLUMNS}, ensure_ascii=False) + "\n"


def write_jsonl(rows: list[dict[str, Any]], path: Path) -> None:
    """All rows at once, replacing `path` only when complete."""
    tmp = path.with_name(path.name + ".kb-writing")
    with tmp.open("w", encoding="utf-8") as handle:
        handle.writelines(_line(row) for row in rows)
    os.replace(tmp, path)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Rows of a results file; a line cut short by a crash (or not a row) is left out, so
    its job runs again on `--resume`."""
    rows = []
    with path.open(encoding="utf-8", errors="replace") as handle:
        for text in handle:
            try:
                row = json.loads(text)
            except json.JSONDecodeError:
                continue
            if isinstance(row, dict) and isinstance(row.get("job"), str):
                rows.append({c: row.get(c) for c in COLUMNS})
    return rows


class RowStream:
    """Rows appended to a JSON lines file as they come: the output itself for `.jsonl`, a
    `<output>.partial.jsonl` beside a Parquet output until the Parquet file is written."""

    def __init__(self, output: Path, fmt: str) -> None:
        self.output, self.fmt = output, fmt
        self.path = output if fmt == "jsonl" else output.with_name(output.name + ".partial.jsonl")
        self._handle: IO[str] | None = None
        self.resume = False

    def previous(self) -> list[dict[str, Any]]:
        """The rows a stopped batch left (for `--resume`), one per job, the latest kept."""
        rows: list[dict[str, Any]] = []
        if self.fmt == "parquet" and self.output.exists():
            import pyarrow.parquet as pq

            rows += [{c: r.get(c) for c in COLUMNS} for r in pq.read_table(self.output).to_pylist()]
        if self.path.exists():
            rows += read_jsonl(self.path)
        return list({str(r["job"]): r for r in rows}.values())

    def _open(self) -> IO[str]:
        """Start the stream at the first row (a batch that never starts leaves the output as
        it was): anew, or (`resume`) after the rows already there, which stay untouched until
        the final file is written."""
        resume, cut_short = self.resume, False
        if resume and self.path.exists() and self.path.stat().st_size:
            with self.path.open("rb") as fh:
                fh.seek(-1, os.SEEK_END)
                cut_short = fh.read(1) != b"\n"
        handle = self.path.open("a" if resume else "w", encoding="utf-8")
        if cut_short:  # a line a crash cut short stays unread, its own line
            handle.write("\n")
        return handle

    def write(self, row: dict[str, Any]) -> None:
        if self._handle is None:
            self._handle = self._open()
        self._handle.write(_line(row))
        self._handle.flush()
        os.fsync(self._handle.fileno())  # a lost machine keeps the row too

    def finish(self, rows: list[dict[str, Any]]) -> None:
        """The final file: every row in job order; the partial stream goes once it is."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None
        rows = sorted(rows, key=lambda r: str(r["job"]))
        if self.fmt == "parquet":
            write_parquet(rows, self.output)
            self.path.unlink(missing_ok=True)
        else:
            write_jsonl(rows, self.output)


def write_parquet(rows: list[dict[str, Any]], path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema(
        [
            ("job", pa.string()),
            ("verdict", pa.string()),
            ("case_id", pa.string()),
            ("level", pa.string()),
            ("confidence", pa.string()),
            ("score", pa.float64()),
            ("culprit_rank", pa.int64()),
            ("evidence", pa.list_(pa.string())),
            ("also", pa.list_(pa.string())),
            ("files", pa.int64()),
            ("error", pa.string()),
            ("note", pa.string()),
        ]
    )
    table = pa.Table.from_pylist([{c: row.get(c) for c in COLUMNS} for row in rows], schema=schema)
    pq.write_table(table, path)


def summary(rows: list[dict[str, Any]], top: int = 10) -> dict[str, Any]:
    """How many jobs each case explains (confirmed or likely first), and the rest."""
    causes: Counter[str] = Counter()
    levels: Counter[str] = Counter()
    for row in rows:
        levels[row["verdict"]] += 1
        if row["verdict"] not in (NO_MATCH, *FAILED):
            causes[row["case_id"]] += 1
    return {
        "jobs": len(rows),
        "verdicts": dict(levels.most_common()),
        "top_causes": [{"case_id": c, "jobs": n} for c, n in causes.most_common(top)],
    }


def render_summary(data: dict[str, Any]) -> str:
    lines = [
        f"{data['jobs']} job(s): " + ", ".join(f"{n} {v}" for v, n in data["verdicts"].items())
    ]
    if data["top_causes"]:
        lines.append("top causes:")
        width = max(len(str(c["jobs"])) for c in data["top_causes"])
        lines += [f"  {c['jobs']:>{width}}  {c['case_id']}" for c in data["top_causes"]]
    return "\n".join(lines) + "\n"
