"""Writing an export to a folder and saying on stdout what was written and what was not.

Every rule that did not validate or convert, and every pattern a backend's regex engine
reads differently, is listed (stderr, and `REGEX-COMPAT.txt` beside the queries).
"""

from __future__ import annotations

import sys
from pathlib import Path

from dsl import model as m
from kb.export.alert_queries import RENDER as ALERTING
from kb.export.alert_queries import convert_case
from kb.export.backends import convert_to_format
from kb.export.regex_compat import problems
from kb.export.sigma import CaseRules, render, write_rules
from kb.export.validate import DISABLED, validate_yaml

SUFFIX = {"loki": "logql", "elasticsearch": "esql", "lucene": "lucene", "duckdb": "sql"}
COMMENT = {"loki": "#", "elasticsearch": "//", "lucene": "#", "duckdb": "--"}
SHOWN = 10  # problems printed on stderr; the rest are counted


def _note(note: str) -> str:
    """A query's note on its comment line: one line whatever the clause texts hold."""
    return f" {' '.join(note.split())}" if note else ""


def _summary(exported: list[CaseRules]) -> str:
    queries = sum(1 for c in exported for r in c.rules if "detection" in r) - sum(
        len(c.correlation.clause_rules) for c in exported
    )
    clauses = sum(len(c.correlation.clause_rules) for c in exported)
    correlated = [c for c in exported if c.correlation.correlation is not None]
    left = sum(len(c.correlation.left) for c in exported)
    return (
        f"{len(exported)} case(s): {queries} query rule(s), {clauses} clause rule(s), "
        f"{len(correlated)} correlation(s); {left} condition part(s) left to "
        "`kb diagnose` (listed in the correlations' descriptions)"
    )


def _report(label: str, errors: list[str]) -> None:
    for line in errors[:SHOWN]:
        print(f"  {line}", file=sys.stderr)
    if len(errors) > SHOWN:
        print(f"  … and {len(errors) - SHOWN} more {label}", file=sys.stderr)


def write_sigma(exported: list[CaseRules], out_dir: Path) -> bool:
    paths = write_rules(exported, out_dir)
    print(f"{out_dir}: {len(paths)} file(s), {_summary(exported)}")
    uncorrelated = [c.case_id for c in exported if c.correlation.correlation is None]
    if uncorrelated:
        print(
            f"no correlation (no `require` clause is made of log evidence): "
            f"{', '.join(uncorrelated)}"
        )
    result = validate_yaml({p.name: p.read_text(encoding="utf-8") for p in paths})
    print(
        f"pySigma: {result.rules} rule(s) parsed, {len(result.errors)} issue(s); "
        f"validators not run: {', '.join(sorted(DISABLED))} (reasons in kb/export/validate.py)"
    )
    _report("issue(s)", result.errors)
    return result.ok


def _compat(backend: str, exported: list[CaseRules], cases: dict[str, m.Case]) -> list[str]:
    out = []
    for c in exported:
        for q in cases[c.case_id].queries:
            if isinstance(q, m.LogQuery):
                found = problems(backend, q.pattern.pattern, q.pattern.ignore_case)
                if found:
                    out.append(f"{c.case_id}/{q.name}: /{q.pattern.pattern}/: " + "; ".join(found))
    return out


def write_backend(
    backend: str,
    output_format: str,
    exported: list[CaseRules],
    out_dir: Path,
    cases: dict[str, m.Case] | None = None,
) -> bool:
    out_dir.mkdir(parents=True, exist_ok=True)
    suffix = SUFFIX[backend] if output_format == "default" else f"{output_format}.txt"
    if backend == "loki" and output_format == "ruler":
        suffix = "ruler.yaml"
    errors: list[str] = []
    written = 0
    for c in exported:
        target = out_dir / f"{c.stem}.{suffix}"
        if backend == "loki" and output_format == "ruler":
            from kb.export.loki_ruler import ruler_groups

            conversion = convert_case(backend, c)
            errors += [f"{c.case_id}: {q.rule_name}: {q.error}" for q in conversion.errors]
            text = ruler_groups(c.case_id, conversion, c.rules, c.alert)
            written += 1
        elif output_format == "default":
            conversion = convert_case(backend, c)
            mark = COMMENT[backend]
            text = "".join(
                f"{mark} {q.rule_name} ({q.rule_id}){_note(q.note)}\n{q.query}\n\n"
                for q in conversion.queries
                if q.query
            )
            errors += [f"{c.case_id}: {q.rule_name}: {q.error}" for q in conversion.errors]
            written += sum(1 for q in conversion.queries if q.query)
        else:
            try:
                text = convert_to_format(backend, c.rules, output_format)
            except ValueError as exc:
                errors.append(f"{c.case_id}: {exc}"[:500])
                continue
            written += 1
        target.write_text(text, encoding="utf-8")
    unit = "quer(ies)" if output_format == "default" else f"{output_format} file(s)"
    print(
        f"{out_dir}: {written} {unit} for {len(exported)} case(s); "
        f"{len(errors)} rule(s) not converted"
    )
    if backend in ALERTING and output_format in ("default", "ruler"):
        silent = [c.case_id for c in exported if c.alert is None or not c.alert.expressible]
        print(
            f"{len(exported) - len(silent)} case alert(s) (`require` minus `rule_out`, "
            "as far as log lines decide them)"
            + (
                f"; none for (no `require` part is log evidence): {', '.join(silent)}"
                if silent
                else ""
            )
        )
    _report("rule(s) not converted", errors)
    compat = _compat(backend, exported, cases or {})
    if compat:
        (out_dir / "REGEX-COMPAT.txt").write_text("\n".join(compat) + "\n", encoding="utf-8")
        print(
            f"{len(compat)} pattern(s) read differently by {backend}'s regex engine than by "
            f"RE2: see {out_dir / 'REGEX-COMPAT.txt'}"
        )
    return not errors


__all__ = ["render", "write_backend", "write_sigma"]
