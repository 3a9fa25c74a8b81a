"""Writing a batch's rows (JSON lines or Parquet) and the summary of the fleet's top causes."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from kb.batch.rows import COLUMNS, ERROR, NO_MATCH

PARQUET_HINT = "pip install 'distkb[ray]' (pyarrow writes Parquet)"


def write_jsonl(rows: list[dict[str, Any]], path: Path) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps({c: row.get(c) for c in COLUMNS}, ensure_ascii=False) + "\n")


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
        if row["verdict"] not in (NO_MATCH, ERROR):
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
