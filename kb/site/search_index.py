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

from kb.site.normalise import han_words, normalise_indexed

log = logging.getLogger("mkdocs.hooks.kb.search")

INDEX = Path("search") / "search_index.json"
_TAB_LABELS = re.compile(r'<div class="tabbed-labels"')


def exclude_tab_labels(html: str) -> str:
    """Mark every tab label bar `data-search-exclude` (the search plugin skips it)."""
    return _TAB_LABELS.sub('<div class="tabbed-labels" data-search-exclude', html)


def normalise_index(site_dir: Path) -> list[str]:
    """Rewrite the built index with every entry's text normalised (long numbers kept);
    return its Chinese words, which queries are cut into (`kb.site.normalise.segment`)."""
    path = site_dir / INDEX
    if not path.is_file():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    texts = []
    for doc in data.get("docs", []):
        if isinstance(doc.get("text"), str):
            doc["text"] = normalise_indexed(doc["text"])
        texts += [v for k, v in doc.items() if k in ("title", "text") and isinstance(v, str)]
    path.write_text(json.dumps(data, separators=(",", ":"), ensure_ascii=False), encoding="utf-8")
    log.info("kb: search index normalised (%d entries)", len(data.get("docs", [])))
    return han_words(texts)


def index_words(site_dir: Path) -> list[str]:
    """The Chinese words of a built site's index (what its query script was given)."""
    data = json.loads((site_dir / INDEX).read_text(encoding="utf-8"))
    docs = data.get("docs", [])
    return han_words(
        v for doc in docs for k, v in doc.items() if k in ("title", "text") and isinstance(v, str)
    )
