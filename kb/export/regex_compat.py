"""Whether a case pattern (RE2 syntax) means the same to each backend's regex engine.

DuckDB's `regexp_matches` is RE2 and Loki is Go's RE2: the patterns carry over as written.
Elasticsearch (ES|QL `RLIKE`, Lucene `/…/`) reads Lucene's regex, so patterns are rewritten
(`kb.export.lucene`); what the rewrite had to loosen or leave as written is reported here,
never dropped.

>>> problems("elasticsearch", r"\\bOOM\\b")
['loosened: word boundary \\\\b dropped']
>>> problems("duckdb", r"\\bOOM\\b")
[]
"""

from __future__ import annotations

from kb.export.lucene import to_lucene

LUCENE_BACKENDS = frozenset({"elasticsearch", "lucene"})


def problems(backend: str, pattern: str, ignore_case: bool = False) -> list[str]:
    """What the backend's engine reads differently from RE2 (empty: the same)."""
    if backend not in LUCENE_BACKENDS:
        return []
    t = to_lucene(pattern, ignore_case)
    return [f"loosened: {x}" for x in t.loosened] + [
        f"kept as written: {x}" for x in dict.fromkeys(t.untranslated)
    ]
