"""Every catalogue message has a page of its own: what it means (English and 中文), every
wording with its releases, the causes that can print it, ranked and linked to case pages
that exist, each with the check that tells it apart, and the first command. Values from the
catalogue are escaped, never markup."""

from __future__ import annotations

import re

import pytest

from dsl import model as m
from dsl.api import load_cases
from dsl.catalogue import model as cm
from dsl.catalogue.load import load_catalogue
from dsl.values import Text
from kb.site import message_pages
from kb.site.catalogue_pages import INDEX, catalogue_pages, emitter_path
from kb.site.message_pages import RANKING, causes, message_path, page, shown
from kb.site.pages import case_path

CAUSE_LINK = re.compile(r"\]\(\.\./cases/([^)#]+)\.md\)")


@pytest.fixture(scope="module")
def bundled() -> tuple[cm.Catalogue, list[m.Case], dict[str, str]]:
    catalogue = load_catalogue(with_env=False).catalogue
    cases = list(load_cases(with_env=False).cases)
    return catalogue, cases, catalogue_pages(catalogue, cases)


def test_every_message_has_a_page_with_every_wording_and_meaning(
    bundled: tuple[cm.Catalogue, list[m.Case], dict[str, str]],
) -> None:
    catalogue, _cases, pages = bundled
    assert len(catalogue.messages) >= 600
    assert INDEX in pages
    for msg in catalogue.messages.values():
        body = pages[message_path(msg.id)]
        assert f"catalogue id `{msg.id}`" in body, msg.id
        assert "## First command" in body and "```bash\nkb diagnose --evidence ./logs" in body
        for wording in msg.wordings:
            text = shown(wording)
            assert text.split("{")[0].strip()[:20] in body, (msg.id, text)
        if msg.means.zh:
            assert '=== "中文"' in body and "含义" in body, msg.id
        # the emitter's list links the page
        assert f"({message_pages.slug(msg.id)}.md)" in pages[emitter_path(msg.emitter)]


def test_every_cause_link_resolves_and_every_case_cause_is_linked(
    bundled: tuple[cm.Catalogue, list[m.Case], dict[str, str]],
) -> None:
    catalogue, cases, pages = bundled
    ids = {c.id for c in cases}
    linked_any = 0
    for msg in catalogue.messages.values():
        body = pages[message_path(msg.id)]
        section = body[body.index("## Causes that can print it") :]
        links = set(CAUSE_LINK.findall(section))
        assert links <= ids, (msg.id, links - ids)
        assert {c for c in msg.causes if c in ids} <= links, msg.id
        for cid in links:
            assert case_path(cid) == f"cases/{cid}.md"
        linked_any += bool(links)
        if links:
            assert RANKING in section
    assert linked_any >= 100  # the test reads real links, not an empty catalogue


def _case(cases: list[m.Case], prefix: str) -> m.Case:
    return next(c for c in cases if c.id.startswith(prefix))


def test_causes_rank_decisive_first_then_by_stored_incidents(
    bundled: tuple[cm.Catalogue, list[m.Case], dict[str, str]],
) -> None:
    _catalogue, cases, _pages = bundled
    a, b = _case(cases, "master-port"), _case(cases, "rendezvous-store")
    by_id = {a.id: a, b.id: b}
    msg = cm.Message(
        id="x.y.z", emitter="pytorch", means=Text(en="x"), role="shared", causes=[a.id, b.id]
    )
    order = [c.id for c in causes(msg, by_id, {(a.id, "x.y.z"): (1, 4), (b.id, "x.y.z"): (3, 3)})]
    assert order == [b.id, a.id]
    order = [c.id for c in causes(msg, by_id, {(a.id, "x.y.z"): (4, 4), (b.id, "x.y.z"): (3, 3)})]
    assert order == [a.id, b.id]
    decisive = msg.model_copy(update={"role": "decisive", "causes": [b.id, "unknown"]})
    ranked = causes(decisive, by_id, {})
    assert [c.id for c in ranked] == [b.id] and ranked[0].decisive


def test_each_case_cause_has_a_check_that_is_not_the_message_itself(
    bundled: tuple[cm.Catalogue, list[m.Case], dict[str, str]],
) -> None:
    catalogue, cases, pages = bundled
    by_id = {c.id: c for c in cases}
    with_check = 0
    for msg in catalogue.messages.values():
        for cause in causes(msg, by_id, {}):
            if cause.case is None or cause.check is None:
                continue
            with_check += 1
            assert "Tells it apart" in pages[message_path(msg.id)]
    named = sum(1 for msg in catalogue.messages.values() for c in msg.causes if c in by_id)
    assert with_check >= 0.8 * named, (with_check, named)


def test_values_are_escaped() -> None:
    msg = cm.Message(
        id="x.y.z",
        emitter="nccl",
        means=Text(en="a <script>alert(1)</script> | *bold*"),
        role="shared",
        causes=["unknown"],
        wordings=[cm.Wording(template="left | right {a:int} `tick`", regex="x", since="2.7")],
        samples=[cm.Sample(text="```\nfence", origin="javascript:alert(1)")],
    )
    body = page(msg, {}, {}, 10)
    assert "<script>" not in body
    assert "\\*bold\\*" in body
    assert "- `` left | right {a:int} `tick` ``: 2\\.7 and later" in body  # a list, no table
    assert "[javascript" not in body  # a non-http origin is shown as code, not linked
    assert "Other causes no case covers yet" in body


def test_a_message_pages_title_is_plain_text(
    bundled: tuple[cm.Catalogue, list[m.Case], dict[str, str]],
) -> None:
    """The header bar and the browser tab show the title as is: a wording's own backticks
    (accelerate env's "- `Accelerate` default config:") must not reach it; the heading
    shows the wording whole, as code."""
    catalogue, _cases, pages = bundled
    with_ticks = [m for m in catalogue.messages.values() if "`" in message_pages.headline(m)]
    assert with_ticks  # the catalogue has such wordings, so this can fail
    for msg in catalogue.messages.values():
        front = pages[message_path(msg.id)].split("\n---\n", 1)[0]
        (title,) = [ln for ln in front.splitlines() if ln.startswith("title: ")]
        assert "`" not in title, (msg.id, title)


def test_messages_joined_by_after_link_each_other_both_ways(
    bundled: tuple[cm.Catalogue, list[m.Case], dict[str, str]],
) -> None:
    """A message printed on the way to another (`after`) is named on both pages, each link
    to a page that exists: the reader sees which lines count as one fact."""
    catalogue, _cases, pages = bundled
    pairs = [(msg.id, other) for msg in catalogue.messages.values() for other in msg.after]
    assert len(pairs) >= 5  # the bundled catalogue joins real failures (NCCL shm, Open MPI PMI…)
    for later, earlier in pairs:
        for here, there in ((later, earlier), (earlier, later)):
            body = pages[message_path(here)]
            section = body[body.index("## Printed in the same failure") :]
            section = section[: section.index("## Every wording")]
            assert f"({message_pages.slug(there)}.md)" in section, (here, there)
            assert message_path(there) in pages
