"""Running converted rules in DuckDB over shipped JSON lines: which lines each rule hits and
whether a case's correlation fires for the job. Offline, in memory, one table `logs`.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb.export import fields as f
from kb.export.backends import Conversion
from kb.export.shipper import write_jsonl


@dataclass
class Replay:
    hits: dict[str, set[tuple[str, int]]] = field(default_factory=dict)  # rule -> (file, line)
    fired: dict[str, bool] = field(default_factory=dict)  # correlation rule -> fired


def load_logs(con: Any, evidence: Path, job: str) -> int:
    """Ship `evidence` to JSON lines and load them as the table `logs`."""
    return load_jobs(con, {job: evidence})


def load_jobs(con: Any, jobs: dict[str, Path]) -> int:
    """Ship each job's evidence folder and load them all as one table `logs`, as a platform
    holds a fleet's lines: the rules and alerts group by `job`."""
    with tempfile.TemporaryDirectory() as tmp:
        files, n = [], 0
        for i, (job, evidence) in enumerate(jobs.items()):
            out = Path(tmp) / f"records-{i}.jsonl"
            count = write_jsonl(evidence, job, out)
            if count:
                files.append(str(out))
                n += count
        con.execute("DROP TABLE IF EXISTS logs")
        if not files:
            con.execute(
                f"CREATE TABLE logs ({f.TIMESTAMP} TIMESTAMPTZ, {f.HOST} VARCHAR, {f.JOB} VARCHAR,"
                f" {f.RANK} BIGINT, {f.FILE} VARCHAR, {f.LINE_NUMBER} BIGINT, {f.LINE} VARCHAR,"
                f" {f.KIND} VARCHAR)"
            )
        else:
            con.execute(
                "CREATE TABLE logs AS SELECT * FROM read_json(?, format='newline_delimited', "
                f"columns={{{f.TIMESTAMP}: 'TIMESTAMPTZ', {f.HOST}: 'VARCHAR', {f.JOB}: 'VARCHAR', "
                f"{f.RANK}: 'BIGINT', {f.FILE}: 'VARCHAR', {f.LINE_NUMBER}: 'BIGINT', "
                f"{f.LINE}: 'VARCHAR', {f.KIND}: 'VARCHAR'}})",
                [files],
            )
    return n


def alerted_jobs(con: Any, conversion: Conversion, alert_name: str) -> set[str]:
    """The jobs of the loaded `logs` the case's alert query returns."""
    query = next(q.query for q in conversion.queries if q.rule_name == alert_name and q.query)
    return {row[0] for row in con.execute(query).fetchall()}


def run(con: Any, conversion: Conversion) -> Replay:
    """Each base rule's hits and each correlation's verdict on the loaded `logs`."""
    result = Replay()
    for q in conversion.queries:
        if q.error or not q.query:
            continue
        rows = con.execute(q.query).fetchall()
        if q.correlation:
            result.fired[q.rule_name] = bool(rows)
        else:
            columns = [d[0] for d in con.description]
            fi, li = columns.index(f.FILE), columns.index(f.LINE_NUMBER)
            result.hits[q.rule_name] = {(r[fi], r[li]) for r in rows}
    return result
