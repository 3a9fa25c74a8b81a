"""A sentence that names an event to deny it does not say it: `dsl.catalogue.negation`."""

from __future__ import annotations

import re

import pytest

from dsl.catalogue.negation import affirmed, deniable

HANG = re.compile(r"\bhang(s|ing)?\b|\bhung\b|卡住|没有反应|\bno\s+progress\b", re.I)


@pytest.mark.parametrize(
    "text",
    [
        "No training step ran; nothing hung.",
        "it does not hang",
        "it didn't hang on one node",
        "never seen it hang before",
        "Not a hang but a crash",
        "训练没有卡住",
    ],
)
def test_a_denied_event_is_not_said(text: str) -> None:
    assert HANG.search(text) and not affirmed(HANG, text)


@pytest.mark.parametrize(
    "text",
    [
        "training hangs at step 3",
        "It never crashed, but hangs at step 3",  # the denial is in another clause
        "not sure why it hangs",  # the negator is too far back to be about the hang
        "no progress after the first epoch",  # the negator is part of the phrasing
        "程序没有反应",
        "训练卡住了",
    ],
)
def test_an_affirmed_event_is_said(text: str) -> None:
    assert affirmed(HANG, text)


def test_only_events_can_be_denied() -> None:
    assert deniable(["symptom.hang", "tried.p2p-disabled"])
    assert not deniable(["scale.multi-node"])  # "but not across machines" names the setting
    assert not deniable(["symptom.hang", "phase.evaluation"])
    assert not deniable([])
