"""The finders a person scans: the symptom finder grouped by phase, one language per tab,
each case named once per phase; the phase page's summaries kept off phones; the home page
naming the error-message finders first. Generated Markdown only, no MkDocs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dsl import model as m
from dsl.api import load_cases
from kb.site import escape, finders, message_pages, phases
from kb.site.pages import error_strings, render_site

HAN = re.compile(r"[\u4e00-\u9fff]")
LINK = re.compile(r"\]\(\.\./cases/([^)#]+)\.md\)")
HOME = Path(__file__).resolve().parents[2] / "site" / "index.md"


@pytest.fixture(scope="module")
def cases() -> list[m.Case]:
    return list(load_cases(with_env=False).cases)


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return render_site(load_cases(with_env=False), language_page=True)


@pytest.fixture(scope="module")
def page(pages: dict[str, str]) -> str:
    return pages["find/symptoms.md"]


def _tabs(page: str) -> tuple[str, str]:
    symptoms = page.split("## Symptoms, by phase of the job", 1)[1].split("## Error messages")[0]
    en, zh = symptoms.split('=== "中文"', 1)
    return en, zh


def test_each_phase_is_one_closed_box_and_each_case_is_named_once_in_it(
    cases: list[m.Case], page: str
) -> None:
    en, zh = _tabs(page)
    for tab, lang in ((en, "en"), (zh, "zh")):
        boxes = re.split(r"^    \?\?\? kb-finder ", tab, flags=re.M)[1:]
        shown = [p for p, cs in phases.by_phase(cases) if cs]
        assert len(boxes) == len(shown), lang
        for box, phase in zip(boxes, shown, strict=True):
            members = {c.id for c in cases if phases.phase_of(c) is phase}
            named = LINK.findall(box)
            assert len(named) == len(set(named)), (lang, phase.key)  # once per phase
            assert set(named) <= members, (lang, phase.key)
            if lang == "en":
                assert set(named) == members
                assert box.startswith(f'"{phase.title.replace("-", chr(92) + "-")} — ')


def test_one_language_per_tab(cases: list[m.Case], page: str) -> None:
    en, zh = _tabs(page)
    item = " " * 12 + "- "  # a symptom: under its case (8 spaces) in its phase box (4)
    en_items = [ln for ln in en.splitlines() if ln.startswith(item)]
    zh_items = [ln for ln in zh.splitlines() if ln.startswith(item)]
    # no Chinese symptom in the English tab; the Chinese tab holds the cases' Chinese texts
    # only, never an English text in its place (a message as printed is the same in both)
    assert not [ln for ln in en_items if HAN.search(ln)]
    shown = {ln.strip()[2:] for ln in zh_items}
    assert shown <= {escape.line(s.text.zh) for c in cases for s in c.symptoms if s.text.zh}
    english = {escape.line(s.text.en) for c in cases for s in c.symptoms if s.text.en != s.text.zh}
    assert not shown & english
    assert len(zh_items) == sum(1 for c in cases for s in c.symptoms if s.text.zh)
    assert len(en_items) == sum(1 for c in cases for s in c.symptoms)


def test_error_messages_are_grouped_by_phase_then_case(cases: list[m.Case]) -> None:
    groups = finders.errors(cases, error_strings)
    named = [e.link for g in groups for e in g["entries"]]
    assert len(named) == len(set(named))  # a case appears under one phase only
    assert sum(g["count"] for g in groups) == sum(len(error_strings(c)) for c in cases)
    assert [g["key"] for g in groups] == [p.key for p, cs in phases.by_phase(cases) if cs]


def test_phase_page_keeps_summaries_in_a_span_a_phone_hides(
    cases: list[m.Case], pages: dict[str, str]
) -> None:
    page = pages["find/phases.md"]
    items = [ln for ln in page.splitlines() if ln.startswith("- [") and "../cases/" in ln]
    assert len(items) == len(cases)
    assert all('<span class="kb-phase-summary">: ' in ln for ln in items)
    css = (HOME.parent / "stylesheets" / "kb.css").read_text(encoding="utf-8")
    phone = css.split("@media screen and (max-width: 44.984375em)")[-1]
    assert ".kb-phase-summary" in phone and "display: none" in phone


def test_home_page_names_the_error_message_finders_before_anything_else() -> None:
    text = HOME.read_text(encoding="utf-8")
    first_h2 = text.index("\n## ")
    assert text[first_h2:].startswith("\n## Only have an error message?")
    section = text[first_h2 : text.index("\n## ", first_h2 + 1)]
    for target in ("find/errors/index.md", "find/phases.md"):
        assert f"]({target})" in section, target
    assert "](triage.md)" in text[:first_h2]


def test_every_candidate_on_an_error_page_has_the_check_that_tells_it_apart(
    cases: list[m.Case],
) -> None:
    """The OOM cascade's proof (a rank's CUDA OOM) is shared by other causes, so no check
    was shown for it on the watchdog page; now its first required evidence is."""
    from dsl.catalogue import registry
    from kb.site import code_ranking, codes, fixture_messages

    catalogue = registry.current()
    by_id = {c.id: c for c in cases}
    counts = fixture_messages.counts(cases)
    missing = []
    for code in codes.collect(cases):
        found = code_ranking.messages_for(code, catalogue)
        for cand in code_ranking.candidates(code, found, by_id, counts):
            if cand.check is None:
                missing.append((code.name, cand.case.id))
    assert missing == []
    watchdog = next(c for c in codes.collect(cases) if c.name.startswith("Watchdog caught"))
    found = code_ranking.messages_for(watchdog, catalogue)
    oom = [
        c
        for c in code_ranking.candidates(watchdog, found, by_id, counts)
        if c.case.id == "rank-oom-cascades-to-watchdog-timeout"
    ]
    assert oom and oom[0].check is not None and "memory" in oom[0].check.words


# the words of whoever wrote the phase keywords, not of someone whose job just failed
JARGON = ("rendezvous", "collective", "launch", "shutdown")


def test_phases_are_named_in_the_users_words_on_every_page(pages: dict[str, str]) -> None:
    """A phase is shown as when the job failed ("Start-up", "Evaluation or save"), in
    English and Chinese; the internal ids (`launch`, `first`, …) stay as anchors only."""
    assert [p.key for p in phases.PHASES] == ["launch", "first", "mid", "eval", "shutdown"]
    for phase in phases.PHASES:
        assert not [w for w in JARGON if w in phase.title.lower()], phase.title
        assert HAN.search(phase.title_zh) and "rendezvous" not in phase.title_zh
        assert (
            f"## {escape.line(phase.title)} · {phase.title_zh} {{ #{phase.key} }}"
            in (pages["find/phases.md"])
        )
    shown = [pages["find/phases.md"], pages["find/symptoms.md"], pages["triage.md"]]
    for old in ("Launch and rendezvous", "First collective", "Evaluation and save"):
        assert not [p for p in shown if old in p], old
    _en, zh = _tabs(pages["find/symptoms.md"])
    assert "启动时：" in zh or "第一步：" in zh


WATCHDOG = "find/errors/watchdog-caught-collective-operation-timeout.md"
BOX = re.compile(r'<details class="kb-candidate" markdown="1">\n(.*?)\n</details>', re.S)


def test_error_pages_rank_candidates_as_closed_lines_with_their_check(
    cases: list[m.Case], pages: dict[str, str]
) -> None:
    """Each candidate is one closed box whose bar is its rank, its title and the check that
    tells it apart; its summary opens under it (open summaries made the watchdog page 3.4
    screens at 1280 px)."""
    by_id = {c.id: c for c in cases}
    for path in (WATCHDOG, "messages/pytorch-c10d-watchdog-timeout.md"):
        page = pages[path]
        boxes = BOX.findall(page)
        assert len(boxes) >= 4, path
        outside = BOX.sub("", page)
        for n, box in enumerate(boxes, 1):
            bar = box.split("\n", 1)[0]
            assert bar.startswith(f'<summary markdown="span">**{n}\\. [')
            assert bar.endswith("</summary>")
            case = by_id[re.findall(r"/cases/([^)#/]+)\.md\)", bar)[0]]
            checked = message_pages.tell_apart(case, "pytorch.c10d.watchdog-timeout", cases)
            assert (" · Tells it apart: " in bar) == (checked is not None), case.id
            summary = str(escape.text(case.summary.en))
            assert summary in box and summary not in outside, case.id
