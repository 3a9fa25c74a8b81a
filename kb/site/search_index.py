"""The search index as readers need it: no tab labels, and what varies normalised away.

Material indexes each section's text; the "English | 中文" tab labels would start 50 of its
entries, and real log lines on case pages carry timestamps, hosts and pids that only add
noise. Queries get the same normalisation in the browser (`kb.site.normalise`).
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

from kb.site.normalise import normalise_indexed

log = logging.getLogger("mkdocs.hooks.kb.search")

INDEX = Path("search") / "search_index.json"
_TAB_LABELS = re.compile(r'<div class="tabbed-labels"')


def exclude_tab_labels(html: str) -> str:
    """Mark every tab label bar `data-search-exclude` (the search plugin skips it)."""
    return _TAB_LABELS.sub('<div class="tabbed-labels" data-search-exclude', html)


def normalise_index(site_dir: Path) -> None:
    """Rewrite the built index with every entry's text normalised (long numbers kept)."""
    path = site_dir / INDEX
    if not path.is_file():
        return
    data = json.loads(path.read_text(encoding="utf-8"))
    for doc in data.get("docs", []):
        if isinstance(doc.get("text"), str):
            doc["text"] = normalise_indexed(doc["text"])
    path.write_text(json.dumps(data, separators=(",", ":"), ensure_ascii=False), encoding="utf-8")
    log.info("kb: search index normalised (%d entries)", len(data.get("docs", [])))
