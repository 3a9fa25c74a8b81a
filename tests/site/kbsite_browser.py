"""Headless Chromium on a built site served from 127.0.0.1, for the browser tests.

Selenium is always given Debian's chromedriver, so it never downloads one. The browser logs
every network request (Chrome's performance log), so a test can prove none left the machine.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
WAIT = 30


def require_browser() -> None:
    """Fail in CI, skip elsewhere, when Chromium, its driver or selenium is missing."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    try:
        import selenium  # noqa: F401
    except ModuleNotFoundError:
        missing.append("the selenium package")
    if not missing:
        return
    message = (
        f"the browser test needs {', '.join(missing)}: install Debian's chromium and "
        "chromium-driver (`apt-get install -y chromium chromium-driver`, done by "
        "scripts/bootstrap.sh --test) and selenium (`pip install -e '.[test]'`)"
    )
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message)
    pytest.skip(message)


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def serve(root: Path) -> Iterator[str]:
    """`root` over HTTP on 127.0.0.1 and a free port, until the block ends."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def chromium(profile: Path) -> Iterator[Any]:
    require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--hide-scrollbars",
        "--window-size=1400,900",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(WAIT)
    try:
        yield driver
    finally:
        driver.quit()


def viewport(driver: Any, width: int, height: int) -> None:
    """The page's own viewport, exactly `width` x `height` CSS pixels."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )


def requested_urls(driver: Any) -> list[str]:
    """Every URL the browser asked for since the last call."""
    out = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"]).get("message", {})
        if message.get("method") == "Network.requestWillBeSent":
            out.append(message["params"]["request"]["url"])
    return out


def wait_for(driver: Any, css: str) -> Any:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, WAIT).until(ec.presence_of_element_located((By.CSS_SELECTOR, css)))


# each result item is one page: its first link is the page, the links after it its sections
RESULT_LINKS = ".md-search-result__list > .md-search-result__item > a:first-child"


def search(driver: Any, base: str, text: str, expect: str) -> list[str]:
    """Type `text` into the search box; wait until a result link contains `expect` (or time
    out) and return the result pages' links in order (one per page, sections left out)."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    if not driver.current_url.startswith(base):
        driver.get(base + "/")
    box = wait_for(driver, "input.md-search__input")
    driver.execute_script("document.querySelector('.md-search__input').focus()")
    driver.execute_script("arguments[0].value = arguments[1]", box, text[:-1])
    box.send_keys(text[-1])

    def links(d: Any) -> list[str]:
        """All result links in one script call (the list is re-rendered as results come)."""
        return list(
            d.execute_script(
                "return Array.from(document.querySelectorAll(arguments[0]), a => a.href);",
                RESULT_LINKS,
            )
        )

    with contextlib.suppress(TimeoutException):
        WebDriverWait(driver, 10).until(lambda d: any(expect in h for h in links(d)[:1]))
    return links(driver)
