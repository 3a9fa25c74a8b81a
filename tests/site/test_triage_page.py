"""The triage page: every state has a first command and the cases it narrows to, derived from
the cases' phase and tags; every case is listed at least once, or said to fit no state."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dsl import model as m
from dsl.api import load_cases
from kb.site import triage

LINK = re.compile(r"\]\(cases/([^)#]+)\.md\)")


@pytest.fixture(scope="module")
def cases() -> list[m.Case]:
    return list(load_cases(with_env=False).cases)


def _sections(page: str) -> dict[str, str]:
    parts = re.split(r"^## .*\{ #([a-z-]+) \}$", page, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_every_case_is_listed_at_least_once(cases: list[m.Case]) -> None:
    page = triage.page(cases)
    listed = set(LINK.findall(page))
    assert listed == {c.id for c in cases}
    rest = triage.unplaced(cases)
    last = _sections(page)["nothing-matched"]
    if rest:  # a case no situation picks is listed under "nothing matched", with the reason
        other = last[last.index('id="other-cases"') :]
        assert "fit none of the situations above" in other
        assert set(LINK.findall(other)) == {c.id for c in rest}
    else:
        assert 'id="other-cases"' not in page


def test_each_state_has_a_first_command_and_its_derived_cases(cases: list[m.Case]) -> None:
    sections = _sections(triage.page(cases))
    for state in triage.STATES:
        body = sections[state.key]
        shown, _closed = body.split("??? kb-triage ", 1)  # what shows with every box closed
        assert shown.lstrip().startswith("```bash\n")  # the first command comes first
        few = LINK.findall(shown)
        assert 1 <= len(few) <= triage.FEW
        assert set(few) == {c.id for c in triage.most_seen(state, cases)}
        assert "<" not in state.command  # pasted into bash, `<x>` would be a redirection
        assert set(LINK.findall(body)) == {c.id for c in triage.narrowed(state, cases)}
    assert "```bash" in sections["nothing-matched"]
    # the states the issue names, each narrowing to at least one bundled case
    assert all(triage.narrowed(s, cases) for s in triage.STATES)


def test_the_page_is_one_short_block_per_situation(cases: list[m.Case]) -> None:
    """Every case stays on the page, but only a state's few most seen cases show with the
    boxes closed: the page listing all of them open was 13.6 screens at 1280 px."""
    page = triage.page(cases)
    shown = "\n".join(ln for ln in page.splitlines() if not ln.startswith("    "))
    assert len(LINK.findall(shown)) <= triage.FEW * len(triage.STATES)
    assert len(set(LINK.findall(page))) == len(cases)
    assert all(s.command.count("\n") <= 1 for s in triage.STATES)  # at most two lines


def test_a_new_case_lands_under_the_states_its_tags_say(cases: list[m.Case]) -> None:
    base = next(c for c in cases if c.id == "nccl-ib-completion-error")
    new = base.model_copy(update={"id": "zz-new-case", "tags": ["performance", "multi-node"]})
    picked = {s.key for s in triage.STATES if new in triage.narrowed(s, [*cases, new])}
    assert {"slow", "several-nodes"} <= picked


def test_no_case_id_is_written_into_the_states(cases: list[m.Case]) -> None:
    source = Path(triage.__file__).read_text(encoding="utf-8")
    assert not [c.id for c in cases if c.id in source]
