"""The finders as a person meets them in Chromium, at 1280x800 and 390x844.

- the home page: "Only have an error message?" and its links to the triage, phase and
  error-code finders end within the first screen;
- the symptom finder: every phase's box is on the first screen, closed, and opening one
  shows its cases (the whole alphabetical list was ~100 screens at 1280, ~180 at 390);
- the phase page on a phone: a case is its title alone (summaries made it ~47 screens);
- the triage page: three screens at 1280 px with its boxes closed, every case on it.

`KB_SITE_BUILT=<built site folder>` measures an already built site instead of building one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kbsite_browser import chromium, serve, viewport, wait_for

from dsl.api import load_cases

pytestmark = pytest.mark.slow  # drives Chromium over a built site

SCREENS = [(1280, 800), (390, 844)]
PHONE_PHASE_SCREENS = 20  # the phase page at 390 px, every case listed (it was ~47)

BOTTOM = "return arguments[0].getBoundingClientRect().bottom + window.scrollY;"


@pytest.fixture(scope="module")
def served(request: pytest.FixtureRequest) -> Iterator[str]:
    given = os.environ.get("KB_SITE_BUILT")
    site = Path(given) if given else request.getfixturevalue("bundled_site")
    with serve(site) as base:
        yield base


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium(tmp_path_factory.mktemp("chromium-finders")) as driver:
        yield driver


def _link(browser: Any, target: str) -> Any:
    """The article's first link to `target` (a path ending in '/'), or None."""
    from selenium.webdriver.common.by import By

    for a in browser.find_elements(By.CSS_SELECTOR, "article a[href]"):
        if a.get_attribute("href").split("#")[0].endswith(target):
            return a
    return None


@pytest.mark.parametrize("size", SCREENS, ids=["desktop", "phone"])
def test_home_names_the_error_message_finders_on_the_first_screen(
    browser: Any, served: str, size: tuple[int, int]
) -> None:
    width, height = size
    viewport(browser, width, height)
    browser.get(served + "/")
    heading = wait_for(browser, "article h2#error-message")
    assert "Only have an error message?" in heading.text
    ends = {"heading": browser.execute_script(BOTTOM, heading)}
    for target in ("/triage/", "/find/phases/", "/find/errors/"):
        link = _link(browser, target)
        assert link is not None, target
        ends[target] = browser.execute_script(BOTTOM, link)
    assert max(ends.values()) <= height, ends


@pytest.mark.parametrize("size", SCREENS, ids=["desktop", "phone"])
def test_every_phase_of_the_symptom_finder_is_on_the_first_screen(
    browser: Any, served: str, size: tuple[int, int]
) -> None:
    from selenium.webdriver.common.by import By

    width, height = size
    viewport(browser, width, height)
    browser.get(served + "/find/symptoms/")
    wait_for(browser, "article details.kb-finder")
    boxes = [
        b
        for b in browser.find_elements(By.CSS_SELECTOR, "#symptoms ~ .tabbed-set details.kb-finder")
        if b.is_displayed()
    ]
    assert len(boxes) >= 3  # the phases with symptoms, in the tab shown (English)
    assert not [b for b in boxes if b.get_attribute("open")]
    bottoms = [browser.execute_script(BOTTOM, b) for b in boxes]
    # the symptom boxes fit within a screen below the heading at most
    assert max(bottoms) <= 2 * height, bottoms
    boxes[0].find_element(By.TAG_NAME, "summary").click()
    cases = [
        a for a in boxes[0].find_elements(By.CSS_SELECTOR, "li > strong > a") if a.is_displayed()
    ]
    assert len(cases) >= 2 and all("/cases/" in a.get_attribute("href") for a in cases)


def test_the_phase_page_lists_titles_only_on_a_phone(browser: Any, served: str) -> None:
    from selenium.webdriver.common.by import By

    viewport(browser, 390, 844)
    browser.get(served + "/find/phases/")
    wait_for(browser, "article .kb-phase-list")
    summaries = browser.find_elements(By.CSS_SELECTOR, "article .kb-phase-summary")
    assert summaries and not [s for s in summaries if s.is_displayed()]
    screens = browser.execute_script("return document.documentElement.scrollHeight;") / 844
    assert screens <= PHONE_PHASE_SCREENS, screens
    viewport(browser, 1280, 800)
    browser.get(served + "/find/phases/")
    wait_for(browser, "article .kb-phase-summary")
    shown = browser.find_elements(By.CSS_SELECTOR, "article .kb-phase-summary")
    assert all(s.is_displayed() for s in shown)


TRIAGE_SCREENS = 3  # the triage page at 1280x800, every box closed (it was 13.6 open)


def test_the_triage_page_is_three_screens_with_every_case_on_it(browser: Any, served: str) -> None:
    from selenium.webdriver.common.by import By

    viewport(browser, 1280, 800)
    browser.get(served + "/triage/")
    wait_for(browser, "article details.kb-triage")
    boxes = browser.find_elements(By.CSS_SELECTOR, "article details.kb-triage")
    assert boxes and not [b for b in boxes if b.get_attribute("open")]
    screens = browser.execute_script("return document.documentElement.scrollHeight;") / 800
    assert screens <= TRIAGE_SCREENS, screens
    # each situation shows its first command and its few cases with the boxes closed
    for key in ("start-up", "mid-training", "one-rank-crashes", "nothing-matched"):
        heading = browser.find_element(By.ID, key)
        following = heading.find_element(By.XPATH, "following-sibling::*[1]")
        assert following.find_elements(By.CSS_SELECTOR, "pre code"), key
    cases = {
        a.get_attribute("href").split("/cases/")[1].strip("/")
        for a in browser.find_elements(By.CSS_SELECTOR, "article a[href*='/cases/']")
    }
    assert cases == {c.id for c in load_cases(with_env=False).cases}  # open or in a closed box
