"""Every page of the bundled site in headless Chromium, at 1400 and 390 px wide.

Each page fails on what a reader would see as broken: a raw backtick or `{{`/`{%` outside
code, a link with an encoded space (`%20(` from text that was linked whole), prose that
scrolls sideways, a highlighted evidence line cut off at the edge. Case pages must show the
first fix within a screen and a half at 1400x900 (test_fix_first_browser.py holds it to one
screen at 1280x800), and no page may request anything from
anywhere but the local server. Search is tried as a reader would: a Chinese word, and one
real line per case pasted whole from its fixtures, timestamps and hosts kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from kbsite_browser import chromium, requested_urls, search, serve, viewport, wait_for
from kbsite_build import REPO

from dsl import model as m
from dsl.api import load_cases
from kb.site import paste, seen

pytestmark = pytest.mark.slow  # drives Chromium over every page of the built site

SCREENS = (("desktop", 1400, 900), ("phone", 390, 844))
FIX_LIMIT = 1.5  # screens
SCREENSHOTS = REPO / "build" / "screenshots"

CHECK = r"""
var problems = [];
function outsideCode(root) {
  var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, { acceptNode: function (n) {
    for (var p = n.parentElement; p; p = p.parentElement)
      if (/^(CODE|PRE|SCRIPT|STYLE|svg)$/.test(p.tagName)) return NodeFilter.FILTER_REJECT;
    return NodeFilter.FILTER_ACCEPT; } });
  var out = [];
  while (walker.nextNode()) out.push(walker.currentNode.nodeValue);
  return out.join(" ");
}
var text = outsideCode(document.body);
[["`", "a raw backtick"], ["{{", "raw {{"], ["{%", "raw {%"]].forEach(function (t) {
  var at = text.indexOf(t[0]);
  if (at >= 0) problems.push(t[1] + ": ..." + text.slice(Math.max(0, at - 60), at + 40) + "...");
});
document.querySelectorAll("a[href]").forEach(function (a) {
  var href = a.getAttribute("href");
  if (/%20|\s/.test(href)) problems.push("link with a space in it: " + href.slice(0, 120));
});
var doc = document.scrollingElement;
if (doc.scrollWidth > doc.clientWidth + 1)
  problems.push("the page scrolls sideways: " + doc.scrollWidth + " > " + doc.clientWidth);
var article = document.querySelector("article") || document.body;
var edge = article.getBoundingClientRect().right;
var texts = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
var reported = 0;
while (texts.nextNode() && reported < 5) {
  var node = texts.currentNode;
  if (!node.nodeValue.trim()) continue;
  var box = node.parentElement;
  if (box.closest("pre, .highlight, .mermaid, .md-typeset__scrollwrap, .tabbed-labels")) continue;
  var range = document.createRange();
  range.selectNodeContents(node);
  var rects = range.getClientRects();
  for (var i = 0; i < rects.length; i++) {
    if (rects[i].width && rects[i].right > edge + 2) {
      problems.push("prose runs past the page: " + node.nodeValue.trim().slice(0, 80));
      reported++;
      break;
    }
  }
}
article.querySelectorAll("pre").forEach(function (pre) {
  if (!pre.querySelector("mark, .hll")) return;
  var code = pre.querySelector("code") || pre;
  if (code.scrollWidth > code.clientWidth + 1 || pre.scrollWidth > pre.clientWidth + 1)
    problems.push("a highlighted line is cut off: " + code.textContent.trim().slice(0, 80));
});
// the first fix: the box under the summary, or the "Fix" heading on a page without one
var fix = document.getElementById("fix-first") || document.getElementById("fix");
return { problems: problems,
         fix: fix ? fix.getBoundingClientRect().top + window.scrollY : null,
         height: window.innerHeight };
"""


@dataclass
class Visits:
    """What loading every page at every width found."""

    pages: list[str]
    problems: list[str] = field(default_factory=list)
    fix_offsets: dict[str, tuple[float, int]] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)


MESSAGE_SAMPLE_LARGEST = 30  # message pages: the largest (most wordings, causes, samples)
MESSAGE_SAMPLE_STRIDE = 25  # and every 25th of the rest, by name


def _message_page(rel: str, emitters: set[str]) -> bool:
    parts = rel.split("/")
    return len(parts) == 3 and parts[0] == "messages" and parts[1] not in emitters


def _pages(site: Path) -> list[str]:
    """Every page but the catalogue's ~1,000 message pages, which one generator writes
    alike: of those, the largest and a spread by name (all of them at two widths would
    take the better part of an hour)."""
    from dsl.catalogue.load import load_default

    emitters = {msg.emitter for msg in load_default().messages.values()}
    out, messages = [], []
    for path in sorted(site.rglob("*.html")):
        rel = path.relative_to(site).as_posix()
        (messages if _message_page(rel, emitters) else out).append(rel)
    largest = sorted(messages, key=lambda r: -(site / r).stat().st_size)[:MESSAGE_SAMPLE_LARGEST]
    spread = messages[::MESSAGE_SAMPLE_STRIDE]
    out += sorted(set(largest) | set(spread))
    return [rel.removesuffix("index.html") for rel in out]


@pytest.fixture(scope="module")
def served(bundled_site: Path) -> Iterator[str]:
    with serve(bundled_site) as base:
        yield base


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium(tmp_path_factory.mktemp("chromium-every-page")) as driver:
        yield driver


@pytest.fixture(scope="module")
def visits(browser: Any, served: str, bundled_site: Path) -> Visits:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    found = Visits(_pages(bundled_site))
    requested_urls(browser)
    for name, width, height in SCREENS:
        viewport(browser, width, height)
        for page in found.pages:
            browser.get(f"{served}/{page}")
            result = browser.execute_script(CHECK)
            found.problems += [f"{page} at {name} {width}px: {p}" for p in result["problems"]]
            if name == "desktop" and page.startswith("cases/") and page != "cases/":
                found.fix_offsets[page] = (result["fix"], result["height"])
        found.requests += requested_urls(browser)
    return found


def test_every_page_was_loaded_at_both_widths(visits: Visits) -> None:
    cases = load_cases(with_env=False).cases
    assert {f"cases/{c.id}/" for c in cases} <= set(visits.pages)
    for page in (
        "",
        "find/phases/",
        "find/errors/",
        "find/errors/ei0002/",
        "find/errors/ncclremoteerror/",
        "find/symptoms/",
    ):
        assert page in visits.pages, page


def test_no_page_shows_raw_markup_broken_links_sideways_prose_or_cut_lines(
    visits: Visits,
) -> None:
    assert visits.problems == []


def test_fix_starts_within_a_screen_and_a_half_on_every_case_page(visits: Visits) -> None:
    late = {
        page: offset
        for page, (offset, height) in visits.fix_offsets.items()
        if offset is None or offset > FIX_LIMIT * height
    }
    assert visits.fix_offsets and all(h == 900 for _, h in visits.fix_offsets.values())
    assert late == {}, f"'Fix' starts below {FIX_LIMIT} screens of 900 px: {late}"


def test_no_request_leaves_the_local_server(visits: Visits, served: str) -> None:
    assert any(u.startswith(served) for u in visits.requests)
    outside = sorted(
        {
            u[:120]
            for u in visits.requests
            if not u.startswith((served, "data:", "blob:", "about:", "chrome:"))
        }
    )
    assert outside == []


def test_the_phase_chart_is_drawn_by_the_local_mermaid(browser: Any, served: str) -> None:
    viewport(browser, 1400, 900)
    browser.get(f"{served}/find/phases/")
    wait_for(browser, "article .mermaid")
    drawn = browser.execute_script(
        "var m = document.querySelector('article .mermaid');"
        "return [typeof window.mermaid, m.textContent.indexOf('flowchart') < 0,"
        " m.getBoundingClientRect().height];"
    )
    assert drawn[0] == "object" and drawn[1] and drawn[2] > 300, drawn


def test_the_phase_chart_reads_at_1280(browser: Any, served: str) -> None:
    """At 1280 px the chart's boxes show short titles in text at least 11 px high as drawn
    (case ids as labels and Mermaid's default gaps drew it at ~9 px). Material draws the chart in
    a closed shadow root, so the page's own chart source is drawn again by the same local
    Mermaid into a box as wide as the article, and measured there."""
    viewport(browser, 1280, 800)
    browser.get(f"{served}/find/phases/")
    wait_for(browser, "article .mermaid")
    browser.set_script_timeout(60)
    drawn = browser.execute_async_script(
        """
        var done = arguments[arguments.length - 1];
        fetch(location.href).then(function (r) { return r.text(); }).then(function (html) {
          var doc = new DOMParser().parseFromString(html, "text/html");
          var source = doc.querySelector("pre.mermaid code, pre.mermaid").textContent;
          var article = document.querySelector("article");
          var box = document.createElement("div");
          box.style.width = article.getBoundingClientRect().width + "px";
          article.append(box);
          return window.mermaid.render("kb-chart-test", source).then(function (out) {
            box.innerHTML = out.svg;
            var svg = box.querySelector("svg");
            var scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            done(Array.from(svg.querySelectorAll(".node .nodeLabel"), function (l) {
              return [parseFloat(getComputedStyle(l).fontSize) * scale, l.textContent];
            }));
          });
        }).catch(function (e) { done(String(e)); });
        """
    )
    assert isinstance(drawn, list) and len(drawn) >= 20, drawn
    assert min(size for size, _ in drawn) >= 11, sorted(drawn)[:3]
    # labels are titles (words), not case ids (one hyphenated word)
    assert not any(" " not in t.strip() and t.count("-") >= 2 for _, t in drawn), drawn
    browser.save_screenshot(str(SCREENSHOTS / "phases-1280.png"))


def test_the_phase_page_is_readable_on_a_phone(browser: Any, served: str) -> None:
    """At 390 px the chart (case ids in tiny text) gives way to a list of the phases in
    reading-size text, each link visible; at 1400 px the chart shows and the list does not."""
    from selenium.webdriver.common.by import By

    viewport(browser, 390, 844)
    browser.get(f"{served}/find/phases/")
    wait_for(browser, "article .kb-phase-list")
    links = browser.find_elements(By.CSS_SELECTOR, "article .kb-phase-list a")
    assert links and all(a.is_displayed() for a in links)
    sizes = [float(a.value_of_css_property("font-size").removesuffix("px")) for a in links]
    assert min(sizes) >= 14, sizes
    assert not browser.find_element(By.CSS_SELECTOR, "article .kb-phase-chart").is_displayed()
    browser.save_screenshot(str(SCREENSHOTS / "phases-390.png"))
    viewport(browser, 1400, 900)
    browser.get(f"{served}/find/phases/")
    wait_for(browser, "article .kb-phase-chart")
    assert browser.find_element(By.CSS_SELECTOR, "article .kb-phase-chart").is_displayed()
    assert not browser.find_element(By.CSS_SELECTOR, "article .kb-phase-list").is_displayed()


def test_chinese_search_finds_a_case_by_a_chinese_word(browser: Any, served: str) -> None:
    """心跳 (heartbeat) finds the heartbeat-lost case: its page, or the page of a message the
    catalogue says that case prints (which links it first), among the first three."""
    from dsl.catalogue import registry
    from kb.site.message_pages import message_path

    case = "hccl-link-down-heartbeat-lost"
    right = [f"/cases/{case}/"] + [
        "/" + message_path(msg.id).removesuffix(".md") + "/"
        for msg in registry.current().messages.values()
        if case in msg.causes
    ]
    assert len(right) > 1  # the catalogue names the case among some message's causes
    viewport(browser, 1400, 900)
    browser.get(served + "/")
    links = search(browser, served, "心跳", right[0])
    assert any(r in h for h in links[:3] for r in right), links[:5]


def real_line(case: m.Case, cases: list[m.Case]) -> tuple[str, int] | None:
    """A line of the case's own positive fixtures, whole, where the case's patterns rank it
    best (first, or among the first three for a message other causes print too), and that
    place: the line a person with this failure would paste."""
    best: tuple[str, int] | None = None
    for line in seen.seen_lines(case, limit=10, max_chars=None):
        ranked = [case_id for _, case_id in paste.score(line.text, cases)]
        if case.id in ranked[:3]:
            place = ranked.index(case.id) + 1
            if best is None or place < best[1]:
                best = (line.text, place)
    return best


def shows_what_it_requires(case_id: str, cases: list[m.Case]) -> bool:
    """Whether a line the case's page shows matches one of the case's `require` patterns."""
    case = next(c for c in cases if c.id == case_id)
    required = [p for p in paste.case_patterns(case) if p.weight == paste.WEIGHTS[m.Role.REQUIRED]]
    compiled = [c for c in (paste._python(p) for p in required) if c is not None]
    lines = seen.seen_lines(case, limit=10, max_chars=None)
    return any(c.search(line.text) for c in compiled for line in lines)


def test_a_real_line_pasted_whole_ranks_its_case_where_the_patterns_do(
    browser: Any, served: str
) -> None:
    """A message several causes print (a watchdog timeout) lists its cases together; the
    browser's order is the Python rule's order, and most cases have a line that puts them
    first."""
    cases = list(load_cases(with_env=False).cases)
    viewport(browser, 1400, 900)
    browser.get(served + "/")
    missed, without, first = {}, [], 0
    for case in cases:
        found = real_line(case, cases)
        if found is None:
            without.append(case.id)
            continue
        line, place = found
        first += place == 1
        links = search(browser, served, line, f"/cases/{case.id}/")
        if not any(f"/cases/{case.id}/" in h for h in links[:place]):
            missed[case.id] = (line[:100], place, [h.replace(served, "") for h in links[:3]])
    browser.save_screenshot(str(SCREENSHOTS / "search-pasted-line.png"))
    assert missed == {}
    # only a case none of whose shown lines holds what it requires (its required evidence
    # is packages, collectives or a line its page does not show) may have none: the matcher
    # lists a case only for a line matching one of its `require` patterns
    assert [c for c in without if shows_what_it_requires(c, cases)] == []
    assert first >= len(cases) * 3 // 4, first
