"""Whether a case pattern (RE2 syntax) means the same to each backend's regex engine.

DuckDB's `regexp_matches` is RE2 and Loki is Go's RE2: the patterns carry over. Lucene's
regex (Elasticsearch `/…/` and ES|QL `RLIKE`) is another language: no `\\d \\w \\s \\b`
classes, no `(?i)` or `(?:`, `^`/`$` are not anchors, `@ & ~ < > #` are operators, and it
must match the whole field. Those patterns are reported, not dropped.

>>> lucene_problems("CUDA out of memory\\\\. Tried to allocate \\\\d")
['\\\\d (a character class Lucene lacks)', 'unanchored (Lucene matches the whole field)']
"""

from __future__ import annotations

import re

_LUCENE = [
    (re.compile(r"\\[dDwWsSbB]"), "{} (a character class Lucene lacks)"),
    (re.compile(r"\(\?[a-zA-Z]*[:)]|\(\?P<"), "{} (an inline group or flag Lucene lacks)"),
    (re.compile(r"(?<!\\)[@&~<>#]"), "{} (an operator in Lucene regex)"),
    (re.compile(r"(?<!\\)[\^$]"), "{} (not an anchor in Lucene regex)"),
    (re.compile(r"[*+?}]\?"), "{} (lazy quantifiers are unknown to Lucene)"),
]


def lucene_problems(pattern: str, ignore_case: bool = False) -> list[str]:
    out = []
    for regex, message in _LUCENE:
        seen = dict.fromkeys(m.group(0) for m in regex.finditer(pattern))
        out.extend(message.format(s) for s in seen)
    if ignore_case:
        out.append("case-insensitive (Lucene regex has no flag for it)")
    if not (pattern.startswith(".*") and pattern.endswith(".*")):
        out.append("unanchored (Lucene matches the whole field)")
    return out


def problems(backend: str, pattern: str, ignore_case: bool = False) -> list[str]:
    """What the backend's engine reads differently from RE2 (empty: the same)."""
    if backend == "elasticsearch":
        return lucene_problems(pattern, ignore_case)
    return []
