"""The first fix is on the first screen of every case page, on a desktop and on a phone.

Headless Chromium loads each case page at 1280x800 and 390x844 and measures where the
"Fix first" box (`#fix-first`) and its command start, from the top of the page.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kbsite_browser import chromium, serve, viewport, wait_for
from kbsite_build import REPO

from dsl.api import load_cases

pytestmark = pytest.mark.slow  # drives Chromium over every case page

DESKTOP = (1280, 800, 1.0)  # width, height, screens the fix must start within
PHONE = (390, 844, 2.0)
SCREENSHOTS = REPO / "build" / "screenshots"

MEASURE = """
var box = document.getElementById("fix-first");
if (!box) return null;
var top = function (el) { return el ? el.getBoundingClientRect().top + window.scrollY : null; };
return { box: top(box), command: top(box.querySelector("pre")),
         bottom: box.getBoundingClientRect().bottom + window.scrollY };
"""


@pytest.fixture(scope="module")
def site(request: pytest.FixtureRequest) -> Path:
    """`KB_SITE_BUILT=<built site folder>` measures an already built site."""
    given = os.environ.get("KB_SITE_BUILT")
    return Path(given) if given else request.getfixturevalue("bundled_site")


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium(tmp_path_factory.mktemp("chromium-fix-first")) as driver:
        yield driver


@pytest.mark.parametrize("screen", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_first_fix_is_on_the_first_screens(
    browser: Any, site: Path, screen: tuple[int, int, float]
) -> None:
    width, height, screens = screen
    limit = height * screens
    cases = [c for c in load_cases(with_env=False).cases if c.remedies]
    assert cases
    viewport(browser, width, height)
    late: dict[str, Any] = {}
    offsets: list[float] = []
    measured = 0
    with serve(site) as base:
        for case in cases:
            browser.get(f"{base}/cases/{case.id}/")
            wait_for(browser, "article h1")
            where = browser.execute_script(MEASURE)
            if where is None:
                late[case.id] = "no #fix-first box"
                continue
            measured += 1
            offsets.append(where["box"])
            starts = [where["box"]] + ([where["command"]] if where["command"] is not None else [])
            if max(starts) > limit:
                late[case.id] = where
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        browser.get(f"{base}/cases/{cases[0].id}/")
        wait_for(browser, "#fix-first")
        browser.save_screenshot(str(SCREENSHOTS / f"case-fix-first-{width}.png"))
    print(f"fix box top at {width}x{height}: max {max(offsets):.0f} px over {len(offsets)} pages")
    assert measured == len(cases) or late
    assert late == {}, f"the fix starts below {limit:.0f} px at {width}x{height}: {late}"
