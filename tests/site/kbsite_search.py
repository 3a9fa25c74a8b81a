"""Typing a line into the real search box and reading the result list as a reader sees it.

Each result group (`li.md-search-result__item`) is one page: its first link is the page,
the others its sections. A group counts as right when any of its links is a right page
(the page itself, or the section of the message on a catalogue page).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from kbsite_browser import WAIT, wait_for

GROUPS_JS = """
return Array.from(
  document.querySelectorAll('.md-search-result__list > li.md-search-result__item'),
  li => Array.from(li.querySelectorAll(':scope > a, :scope > details > a'), a => a.href));
"""
DOCS_JS = """
return Array.from(
  document.querySelectorAll('.md-search-result__list > li.md-search-result__item:not(.kb-paste-match) > a'),
  a => a.href);
"""
SAME_ANSWER = 8.0  # seconds: a line whose results equal the previous line's, counted as such
META_JS = "return (document.querySelector('.md-search-result__meta') || {}).textContent || ''"
POLL = 0.25
SETTLED = 3  # polls in a row with the same results: the worker has answered


def path_of(href: str, base: str) -> str:
    """A result link as a site path with its fragment: "cases/x/#fix" (no query string)."""
    parts = urlsplit(href)
    path = unquote(parts.path).removeprefix(urlsplit(base).path).lstrip("/")
    return path + (f"#{parts.fragment}" if parts.fragment else "")


def groups(driver: Any, text: str) -> list[list[str]]:
    """Type `text` into the search box and return the result groups once they settle."""
    box = wait_for(driver, "input.md-search__input")
    driver.execute_script(
        "arguments[0].focus(); arguments[0].value = '';"
        "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));",
        box,
    )
    # clearing the box leaves the previous line's results up, and the worker takes a second
    # or more to answer: until its answer differs from them they are not this line's
    before = (driver.execute_script(META_JS), driver.execute_script(DOCS_JS))
    if len(text) > 1:
        driver.execute_script("arguments[0].value = arguments[1]", box, text[:-1])
    box.send_keys(text[-1])
    deadline = time.monotonic() + WAIT
    unchanged_until = time.monotonic() + SAME_ANSWER
    last: Any = None
    same = 0
    while time.monotonic() < deadline:
        now = (driver.execute_script(META_JS), driver.execute_script(GROUPS_JS))
        fresh = (now[0], driver.execute_script(DOCS_JS)) != before
        answered = "matching document" in now[0] or "No matching" in now[0]
        answered = answered and (fresh or time.monotonic() > unchanged_until)
        same = same + 1 if answered and now == last else 0
        if same >= SETTLED:
            break
        last = now
        time.sleep(POLL)
    return list(driver.execute_script(GROUPS_JS))


@dataclass
class Outcome:
    line: str
    rank: int | None  # 1-based position of the first right group; None: not listed
    top: list[str]  # the first three groups' page paths


def measure(
    driver: Any, base: str, probes: list[Any], right: Callable[[Any, str], bool]
) -> list[Outcome]:
    out = []
    driver.get(base + "/")
    for probe in probes:
        found = groups(driver, probe.line)
        rank = None
        for i, links in enumerate(found, 1):
            if any(right(probe, path_of(h, base)) for h in links):
                rank = i
                break
        top = [path_of(g[0], base) if g else "" for g in found[:3]]
        out.append(Outcome(probe.line, rank, top))
    return out


def figures(outcomes: list[Outcome]) -> dict[str, Any]:
    n = len(outcomes)
    first = sum(1 for o in outcomes if o.rank == 1)
    top3 = sum(1 for o in outcomes if o.rank is not None and o.rank <= 3)
    return {
        "lines": n,
        "first": first,
        "top3": top3,
        "first_share": round(first / n, 3) if n else 0.0,
        "top3_share": round(top3 / n, 3) if n else 0.0,
        "missed": [
            {"line": o.line, "rank": o.rank, "top": o.top}
            for o in outcomes
            if o.rank is None or o.rank > 1
        ],
    }


def write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
