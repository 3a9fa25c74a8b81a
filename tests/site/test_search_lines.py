"""The real search box finds the right page for real error lines pasted from incidents.

The lines come from the stored incidents (`kbsite_lines`); the right page is the incident's
case page, the catalogue section of a message the line matches, or the error-code page of a
code in it. Figures (and every line not ranked first) go to build/search-figures.json.
`KB_SEARCH_SITE=<built site folder>` measures an already built site instead of building one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kbsite_browser import chromium, serve, viewport
from kbsite_build import REPO
from kbsite_lines import Probe, first_sentence, probes, summary_probes
from kbsite_search import figures, groups, measure, write

from dsl.api import load_cases
from kb.site import normalise, search_index

MIN_LINES = 60
MIN_TOP3 = 0.90
MIN_FIRST = 0.75
MIN_CHINESE_TOP3 = 0.75  # Chinese lines: fixtures' and the cases' own summaries
FIGURES = REPO / "build" / "search-figures.json"


def test_the_lines_are_real_and_varied() -> None:
    found = probes()
    assert len(found) >= MIN_LINES, len(found)
    assert sum(p.chinese for p in found) >= 3
    assert sum(p.has_number for p in found) >= 20
    assert sum(p.has_code for p in found) >= 10
    for probe in found:
        source = REPO / "cases" / probe.source
        assert probe.line in source.read_text(encoding="utf-8", errors="replace"), probe.source
        assert probe.cases


def test_the_summary_lines_are_the_cases_own() -> None:
    found = summary_probes()
    by_id = {c.id: c for c in load_cases(with_env=False).cases}
    assert len(found) >= 20
    for probe in found:
        (case,) = probe.cases
        summary = by_id[case].summary
        assert summary is not None and summary.zh
        assert probe.line == first_sentence(summary.zh) and probe.chinese


def test_a_right_page_is_recognised() -> None:
    probe = Probe("x", cases={"a-case"}, messages={"nccl.net-ib.completion"}, codes={"ei0002"})
    assert probe.right("cases/a-case/")
    assert probe.right("cases/a-case/#fix")
    assert probe.right("messages/nccl/#nccl-net-ib-completion")
    assert probe.right("messages/nccl-net-ib-completion/")
    assert probe.right("find/errors/ei0002/")
    assert not probe.right("cases/other-case/")
    assert not probe.right("messages/nccl/")
    assert not probe.right("messages/nccl/#nccl-other")
    assert not probe.right("find/errors/ei0006/")


@pytest.fixture(scope="module")
def site(request: pytest.FixtureRequest) -> Path:
    given = os.environ.get("KB_SEARCH_SITE")
    if given:
        return Path(given)
    return Path(request.getfixturevalue("bundled_site"))


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium(tmp_path_factory.mktemp("chromium-search")) as driver:
        viewport(driver, 1280, 800)
        yield driver


SHORT_NUMBERS = ["rank 1", "rank 2", "exitcode 1", "error 12", "cuda:1", "2", "3"]
SHORT_NUMBERS += ["2 enqueue.cc:54 NCCL WARN Cuda failure 'invalid resource handle'"]


@pytest.mark.slow  # builds the site
def test_queries_with_short_numbers_get_answers(site: Path, browser: Any) -> None:
    """Lunr's word automaton merged nodes whose keys collide on digits and then threw on
    such words (kb.site.search_worker); which numbers collide depends on the index."""
    with serve(site) as base:
        browser.get(base + "/")
        browser.get_log("browser")
        answered = {q: len(groups(browser, q)) for q in SHORT_NUMBERS}
        refused = [
            e["message"][:200] for e in browser.get_log("browser") if "Invalid" in e["message"]
        ]
    assert refused == [], refused
    assert all(answered.values()), answered


@pytest.mark.slow  # builds the site and types every line into Chromium
def test_pasted_lines_find_their_page(site: Path, browser: Any) -> None:
    lines = probes() + summary_probes()
    with serve(site) as base:
        browser.get_log("browser")  # start from an empty console
        outcomes = measure(browser, base, lines, lambda p, path: p.right(path))
        # the search worker answers a query it cannot parse with nothing and a warning
        refused = [
            e["message"][:200]
            for e in browser.get_log("browser")
            if "Invalid query" in e["message"]
        ]
        if not os.environ.get("KB_SEARCH_SITE"):  # a site built from this checkout
            # the browser sends the worker what the Python rule says (the figures depend on it)
            sent = browser.execute_script(
                "return arguments[0].map(function (l) { return window.kbQuery(l); });",
                [p.line for p in lines],
            )
            words = search_index.index_words(site)  # queries are cut into these
            assert sent == [normalise.query(p.line, words) for p in lines]
    pairs = list(zip(lines, outcomes, strict=True))
    result = figures([o for p, o in pairs if not p.summary])  # the log lines, as before
    result["refused"] = refused
    kinds = {
        "Chinese summaries": lambda p: p.summary,
        "Chinese, all": lambda p: p.chinese,
        "with a number": lambda p: p.has_number and not p.summary,
        "with an error code or well-known message": lambda p: p.has_code and not p.summary,
        "Chinese (incidents)": lambda p: p.chinese and not p.summary,
        "from notes (prose)": lambda p: p.notes,
    }
    result["by_kind"] = {
        name: figures([o for p, o in pairs if has(p)]) for name, has in kinds.items()
    }
    for name, part in result["by_kind"].items():
        if name != "Chinese, all":
            del part["missed"]
    write(FIGURES, result)
    assert refused == [], refused
    summary = (
        f"{result['first']}/{result['lines']} first, {result['top3']}/{result['lines']} in the "
        f"first 3 (details: {FIGURES})"
    )
    assert result["top3_share"] >= MIN_TOP3, summary
    assert result["first_share"] >= MIN_FIRST, summary
    chinese = result["by_kind"]["Chinese, all"]
    assert chinese["top3_share"] >= MIN_CHINESE_TOP3, chinese
