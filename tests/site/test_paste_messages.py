"""The pasted-line matcher reads the catalogue: a line holding a message several causes print
says "can be printed by: A, B, C" (ranked as the message's page ranks them) and never "this
line matches the case's own patterns" for those causes. The generated script is run in Node
on the catalogue's own real samples, no browser."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from dsl import model as m
from dsl.api import load_cases
from dsl.catalogue import model as cm
from dsl.catalogue.load import load_catalogue
from kb.site import fixture_messages, message_pages, paste, paste_messages

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="needs Node.js to run the site's script")

HARNESS = """
global.window = global;
global.document = { readyState: "complete", currentScript: null,
                    querySelector: function () { return null; } };
require(process.argv[2]);
var lines = JSON.parse(require("fs").readFileSync(process.argv[3], "utf8"));
process.stdout.write(JSON.stringify(lines.map(function (l) {
  return window.kbPasteCards(l).map(function (c) {
    // what the reader sees: the text pieces outside code elements
    c.shown = [c.title, c.text].map(function (t) {
      return window.kbPasteInline(t).filter(function (p) { return !p[0]; })
        .map(function (p) { return p[1]; }).join("");
    });
    return c;
  });
})));
"""


@pytest.fixture(scope="module")
def bundled() -> tuple[cm.Catalogue, list[m.Case], list[dict[str, Any]]]:
    catalogue = load_catalogue(with_env=False).catalogue
    cases = list(load_cases(with_env=False).cases)
    data = paste_messages.data(catalogue, cases, fixture_messages.counts(cases))
    return catalogue, cases, data


def _cards(tmp_path: Path, script: str, lines: list[str]) -> list[list[dict[str, str]]]:
    (tmp_path / "paste.js").write_text(script, encoding="utf-8")
    (tmp_path / "harness.js").write_text(HARNESS, encoding="utf-8")
    (tmp_path / "lines.json").write_text(json.dumps(lines), encoding="utf-8")
    assert NODE is not None
    done = subprocess.run(
        [
            NODE,
            str(tmp_path / "harness.js"),
            str(tmp_path / "paste.js"),
            str(tmp_path / "lines.json"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _sampled(
    data: list[dict[str, Any]], catalogue: cm.Catalogue, shared: bool
) -> list[tuple[dict[str, Any], str]]:
    out = []
    for entry in data:
        msg = catalogue.messages[entry["id"]]
        many = len(entry["causes"]) >= 2
        if msg.samples and (many if shared else entry["decisive"]):
            out.append((entry, msg.samples[0].text.splitlines()[0]))
    return out


def test_a_shared_message_names_every_cause_and_no_case_claims_the_line(
    tmp_path: Path, bundled: tuple[cm.Catalogue, list[m.Case], list[dict[str, Any]]]
) -> None:
    catalogue, cases, data = bundled
    by_id = {c.id: c for c in cases}
    probes = _sampled(data, catalogue, shared=True)
    assert len(probes) >= 10
    results = _cards(tmp_path, paste.javascript(cases, data), [line for _e, line in probes])
    named = 0
    for (entry, line), cards in zip(probes, results, strict=True):
        mine = [
            c
            for c in cards
            if c["kind"] == "message"
            and c["href"].endswith(f"messages/{message_pages.slug(entry['id'])}/")
        ]
        if not mine:
            continue  # the line holds other messages first (only two are shown)
        named += 1
        text = mine[0]["text"]
        assert text.startswith("Can be printed by: "), (line, text)
        titles = [by_id[cid].title.en for cid in entry["causes"]]
        assert text.index(titles[0]) < text.index(titles[1])  # in the page's order
        causes = set(entry["causes"])
        for card in cards:
            cid = card["href"].rstrip("/").rsplit("/", 1)[-1]
            if card["kind"] == "case" and cid in causes:
                assert not card["text"].startswith("This line matches"), (line, card)
    assert named >= 0.8 * len(probes), (named, len(probes))


def test_a_decisive_message_names_its_one_cause(
    tmp_path: Path, bundled: tuple[cm.Catalogue, list[m.Case], list[dict[str, Any]]]
) -> None:
    catalogue, cases, data = bundled
    by_id = {c.id: c for c in cases}
    probes = _sampled(data, catalogue, shared=False)
    assert probes
    results = _cards(tmp_path, paste.javascript(cases, data), [line for _e, line in probes])
    hits = 0
    for (entry, _line), cards in zip(probes, results, strict=True):
        cause = entry["causes"][0]
        for card in cards:
            if card["kind"] == "message" and card["href"].endswith(
                f"messages/{message_pages.slug(entry['id'])}/"
            ):
                hits += 1
                assert card["text"] == (
                    f"Only one known cause prints this message: {by_id[cause].title.en}."
                )
            elif (
                card["kind"] == "case"
                and card["href"].endswith(f"cases/{cause}/")
                and card["text"].startswith("Only this case prints this line's message.")
            ):
                hits += 1  # the case's own card takes the message card's place
    assert hits >= 0.8 * len(probes), (hits, len(probes))


def test_cards_show_no_raw_backtick_and_name_a_case_once(
    tmp_path: Path, bundled: tuple[cm.Catalogue, list[m.Case], list[dict[str, Any]]]
) -> None:
    """Card titles and texts are the cases' Markdown: code spans become code, and a case
    with its own card is not also the one cause of a message card below it."""
    catalogue, cases, data = bundled
    by_id = {c.id: c for c in cases}
    lines = [line for _e, line in _sampled(data, catalogue, shared=False)]
    lines += [line for _e, line in _sampled(data, catalogue, shared=True)]
    results = _cards(tmp_path, paste.javascript(cases, data), lines)
    with_ticks = 0
    for line, cards in zip(lines, results, strict=True):
        hrefs = [c["href"] for c in cards]
        assert len(hrefs) == len(set(hrefs)), (line, hrefs)
        own = {h.rstrip("/").rsplit("/", 1)[-1] for h in hrefs if "/cases/" in h}
        for card in cards:
            with_ticks += "`" in card["title"] + card["text"]
            assert not any("`" in shown for shown in card["shown"]), (line, card)
            if card["kind"] == "message" and card["text"].startswith("Only one known cause"):
                named = card["text"].removeprefix("Only one known cause prints this message: ")
                assert all(named != by_id[c].title.en + "." for c in own), (line, card)
    assert with_ticks > 0  # the check saw Markdown code spans to render


def test_shipped_messages_link_pages_that_exist(
    bundled: tuple[cm.Catalogue, list[m.Case], list[dict[str, Any]]],
) -> None:
    catalogue, cases, data = bundled
    ids = {c.id for c in cases}
    assert len(data) >= 100
    for entry in data:
        assert set(entry["causes"]) <= ids and entry["causes"]
        assert entry["id"] in catalogue.messages
