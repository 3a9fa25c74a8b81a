"""Every wording in site/reference/wordings.md is matched by the query its row names.

The page is the record of which release prints which wording; this test holds the case
patterns to it, so a pattern narrowed by accident, or a row added without a pattern that
covers it, fails here."""

from __future__ import annotations

import re
from pathlib import Path

from dsl import model as m
from dsl.compiler import load_knowledge_base
from kb.match.regex import search

PAGE = Path(__file__).resolve().parents[2] / "site" / "reference" / "wordings.md"
ROW = re.compile(r"^\| ([a-z0-9-]+)/(\w+) \| ([^|]+) \| `(.+)` \| ([^|]+) \|$")


def _rows() -> list[tuple[str, str, str, str]]:
    rows = []
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        found = ROW.match(line)
        if found:
            case_id, query, release, sample, _ = found.groups()
            rows.append((case_id, query, release.strip(), sample))
    return rows


def test_the_page_has_a_sample_for_every_family() -> None:
    rows = _rows()
    assert len(rows) >= 50
    assert len({(c, q) for c, q, _, _ in rows}) >= 20


def test_every_sample_matches_its_query() -> None:
    kb = load_knowledge_base(with_env=False)
    misses = []
    for case_id, name, release, sample in _rows():
        compiled = kb.get(case_id)
        assert compiled is not None, case_id
        query = compiled.case.query(name)
        assert isinstance(query, m.LogQuery), f"{case_id}/{name}"
        if not search(query.pattern.pattern, sample, query.pattern.ignore_case):
            misses.append(f"{case_id}/{name} ({release}): {sample[:90]}")
    assert not misses, "\n".join(misses)
