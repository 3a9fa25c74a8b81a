"""The built site as a reader sees it: headless Chromium opens the home page and a case
page and searches for an error string from a case; screenshots go to build/screenshots/.

Without Debian's chromium and chromium-driver this test fails in CI (CI=true) and is
skipped elsewhere. Selenium is always given the driver's path, so it never downloads one.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kbsite_browser import WAIT, chromium, serve, viewport, wait_for
from kbsite_build import REPO

from dsl import model as m
from dsl.api import load_cases

pytestmark = pytest.mark.slow  # drives Chromium over the built site

SCREENSHOTS = REPO / "build" / "screenshots"
TOP = 3  # the case must be among the first pages the search lists


@pytest.fixture(scope="module")
def served(extra_site: Path) -> Iterator[str]:
    """The built site on 127.0.0.1, on a free port, for the length of this module."""
    with serve(extra_site) as base:
        yield base


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as driver:
        viewport(driver, 1280, 1400)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        yield driver


_META = re.compile(r"\\[A-Za-z]|\(\?[a-z]+\)|[\[\](){}*+?|^$.\\]")


def literal_phrase(pattern: str) -> str:
    """The longest run of plain words in a regex: what a person would paste from a log."""
    chunks = [c.strip() for c in _META.split(pattern)]
    return max(chunks, key=len, default="")


def _refs(expr: m.Expr) -> list[m.Ref]:
    if isinstance(expr, m.Ref):
        return [expr]
    if isinstance(expr, m.Not):
        return _refs(expr.operand)
    return [r for o in expr.operands for r in _refs(o)]


def searchable_error(extra_cases: Path) -> tuple[str, str]:
    """(error string, case id): a log pattern's words found in exactly one case's patterns.

    Bundled cases come first, so the test follows the real knowledge base; the extra
    sample case guarantees there is always one.
    """
    bundled = load_cases(with_env=False).cases
    extra = load_cases([extra_cases], with_env=False).cases
    cases = bundled + extra
    # the most distinctive phrase: one whose words the fewest other cases use, so the search
    # has one clearly right answer to rank first (as for a real, specific error line)
    texts = {
        c.id: set(
            re.findall(
                r"[a-z]{3,}", (Path(c.folder) / "case.kb").read_text(encoding="utf-8").lower()
            )
        )
        for c in cases
    }
    best: tuple[int, int, str, str] | None = None
    for case in cases:
        # an error a user would paste: a query that proves or signals the case, not one
        # that only rules it out
        signals = {
            r.name
            for c in case.condition.clauses
            if c.role in (m.Role.REQUIRED, m.Role.LIKELY)
            for r in _refs(c.expr)
        }
        for q in case.queries:
            if not isinstance(q, m.LogQuery) or q.name not in signals:
                continue
            for phrase in (c.strip() for c in _META.split(q.pattern.pattern)):
                words = set(re.findall(r"[a-z]{3,}", phrase.lower()))
                if len(words) < 3:
                    continue
                overlap = sum(len(words & t) for o, t in texts.items() if o != case.id)
                key = (overlap * 100 // len(words), -len(phrase), phrase, case.id)
                if best is None or key < best:
                    best = key
    if best is not None:
        return best[2], best[3]
    raise AssertionError("no case has a log pattern with a searchable phrase")


def test_literal_phrase_of_a_pattern() -> None:
    assert literal_phrase(r"Wait timeout for sockets recv") == "Wait timeout for sockets recv"
    assert literal_phrase(r"(?i)NCCL WARN .*Call to connect returned") == "Call to connect returned"


def test_home_case_page_and_search_in_a_browser(
    browser: Any, served: str, extra_cases: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    phrase, case_id = searchable_error(extra_cases)

    browser.get(served + "/")
    heading = wait_for(browser, "article h1")
    assert "distributed training" in heading.text.lower()
    assert "kb diagnose --evidence ./logs" in browser.find_element(By.TAG_NAME, "article").text
    browser.save_screenshot(str(SCREENSHOTS / "home.png"))

    browser.get(f"{served}/cases/{case_id}/")
    title = wait_for(browser, "article h1")
    assert title.text.strip(), "the case page has no title"
    assert browser.title.startswith(title.text.strip()[:20])
    article = browser.find_element(By.TAG_NAME, "article").text
    for section in ("What you see", "Quick check", "Fix", "How kb decides"):
        assert section in article, section
    assert browser.find_elements(By.CSS_SELECTOR, ".kb-meta dt"), "no metadata box"
    marked = browser.find_elements(By.CSS_SELECTOR, "pre.kb-line mark")
    assert marked, "no highlighted evidence line on the case page"
    browser.save_screenshot(str(SCREENSHOTS / "case.png"))
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", marked[0])
    time.sleep(0.5)  # let the header finish swapping the site name for the page title
    browser.save_screenshot(str(SCREENSHOTS / "case-evidence.png"))

    browser.get(served + "/")
    box = wait_for(browser, "input.md-search__input")
    browser.find_element(By.CSS_SELECTOR, "label.md-search__icon, .md-search__input").click()
    box.send_keys(phrase)

    def found(driver: Any) -> bool:
        """The case is among the first pages listed (each page's first link is the page)."""
        pages = driver.find_elements(
            By.CSS_SELECTOR, ".md-search-result__list > .md-search-result__item > a"
        )
        hrefs = [a.get_attribute("href") or "" for a in pages[:TOP]]
        meta = driver.find_elements(By.CSS_SELECTOR, ".md-search-result__meta")
        # the pasted-line matcher answers at once; the full-text index is built in a worker,
        # and its count of matching documents says it has answered too
        counted = bool(meta) and re.search(r"\d+ matching document", meta[0].text) is not None
        return counted and any(f"/cases/{case_id}/" in h for h in hrefs)

    try:
        WebDriverWait(browser, WAIT).until(found)
    finally:
        browser.save_screenshot(str(SCREENSHOTS / "search.png"))
    meta = browser.find_element(By.CSS_SELECTOR, ".md-search-result__meta").text
    assert re.search(r"\d+ matching document", meta), meta
