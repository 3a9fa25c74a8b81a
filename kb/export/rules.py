"""One log evidence query as one Sigma rule: the query's pattern over the shipped `line`.

The rule says only what one line says. A query's cross-rank scope and counts are kb's
own (Sigma rules see one event at a time), so they go into the description, not away.
"""

from __future__ import annotations

import uuid
from typing import Any

from dsl import model as m
from dsl.explain import describe_query
from kb.export import fields as f
from kb.export.globs import globs_regex

# ids are uuid5 of this namespace and `case-id/query`: stable across runs and machines
NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/distkb/distkb/cases")
PRODUCT = "distributed-training"
SERVICE = "training-logs"
MAX_TITLE = 110  # SigmaHQ's title length limit
LEVELS = {"critical": "critical", "high": "high", "medium": "medium", "low": "low"}
CONFIRM = "confirm with `kb diagnose`"
FALSE_POSITIVES = f"Look-alikes the case rules out ({CONFIRM})"


def rule_name(case_id: str, query: str = "") -> str:
    """The Sigma `name` correlations refer to: `distkb.<case>[.<query>]`."""
    return f"distkb.{case_id}" + (f".{query}" if query else "")


def rule_id(case_id: str, query: str = "") -> str:
    return str(uuid.uuid5(NAMESPACE, f"{case_id}/{query}"))


def title(text: str) -> str:
    return text if len(text) <= MAX_TITLE else text[: MAX_TITLE - 1].rstrip() + "…"


def regex_key(pattern: m.Regex) -> str:
    """`line|re` plus Sigma's regex flags for the pattern's own (`i`, `s`, `m`)."""
    key = f"{f.LINE}|re"
    for flag in "ism":
        if flag in pattern.flags:
            key += f"|{flag}"
    return key


def query_detection(q: m.LogQuery, prefix: str = "") -> tuple[dict[str, Any], str]:
    """Detection items for one query and the condition joining them, names prefixed so
    several queries can share one detection."""
    items, parts = reads_detection(q, prefix)
    items = {f"{prefix}match": {regex_key(q.pattern): q.pattern.pattern}, **items}
    return items, " and ".join([f"{prefix}match", *parts])


def reads_detection(q: m.LogQuery, prefix: str = "") -> tuple[dict[str, Any], list[str]]:
    """The lines a query reads at all, whatever they say: its kinds and its `files`."""
    items: dict[str, Any] = {}
    parts: list[str] = []
    if q.sources:
        kinds = list(q.sources) + ([f.PASTED] if "notes" in q.sources else [])
        items[f"{prefix}kinds"] = {f.KIND: kinds}
        parts.append(f"{prefix}kinds")
    else:  # kb reads a person's words only for queries that ask for them
        items[f"{prefix}words"] = {f.KIND: list(f.WORDS_ONLY)}
        parts.append(f"not {prefix}words")
    if q.files:
        items[f"{prefix}files"] = {f"{f.FILE}|re": globs_regex(q.files)}
        parts.append(f"{prefix}files")
    return items, parts


def left_to_kb(q: m.LogQuery) -> list[str]:
    """What the query checks that one line cannot show."""
    out = []
    if q.scope is not m.Scope.ANY:
        where = {
            m.Scope.ALL: "on every rank that left logs",
            m.Scope.ONE: "on exactly one rank",
            m.Scope.RANK: f"on rank {q.rank}",
            m.Scope.ALL_BUT_ONE: "on every rank but one",
        }[q.scope]
        out.append(f"the line must appear {where} (a cross-rank comparison)")
    if q.min_count > 1:
        out.append(f"at least {q.min_count} matching lines")
    if q.max_count is not None:
        out.append(f"at most {q.max_count} matching lines")
    return out


def references(case: m.Case, site: str) -> list[str]:
    return list(dict.fromkeys([*case.references, f"{site.rstrip('/')}/cases/{case.id}/"]))


def common(case: m.Case, site: str) -> dict[str, Any]:
    """Metadata every rule of one case shares."""
    out: dict[str, Any] = {"status": "experimental", "references": references(case, site)}
    provenance = case.provenance
    if provenance and provenance.authors:
        out["author"] = ", ".join(provenance.authors)
    if provenance and provenance.date:
        out["date"] = provenance.date
    out["tags"] = [f"distkb.{t}" for t in case.tags] + [f"distkb.case.{case.id}"]
    return out


def query_rule(case: m.Case, q: m.LogQuery, site: str) -> dict[str, Any]:
    what = q.description.en if q.description else describe_query(q)
    detection, condition = query_detection(q)
    detection["condition"] = condition
    description = f"{what}. Evidence `{q.name}` of the distkb case `{case.id}`: {case.title.en}"
    left = left_to_kb(q)
    if left:
        description += f". Not expressed in this rule ({CONFIRM}): " + "; ".join(left)
    return {
        "title": title(f"{case.id}: {q.name}"),
        "id": rule_id(case.id, q.name),
        "name": rule_name(case.id, q.name),
        **common(case, site),
        "description": description,
        "logsource": {"product": PRODUCT, "service": SERVICE},
        "detection": detection,
        "falsepositives": [FALSE_POSITIVES],
        "level": LEVELS[case.severity],
    }
