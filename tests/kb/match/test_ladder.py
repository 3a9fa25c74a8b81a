"""The confidence ladder (kb.match.ladder): each rung, on verdicts built by hand, so each
rule can be seen to hold back a verdict and to let one through."""

from __future__ import annotations

from kb.evidence.facts import EvidenceLine
from kb.match.ladder import judge
from kb.match.results import ClauseResult, LadderFact, QueryResult, Truth, Verdict


def _verdict(
    case_id: str, clause_level: str, facts: list[LadderFact], lines: dict[str, list[int]]
) -> Verdict:
    queries = [
        QueryResult(
            name=name,
            kind="log",
            truth=Truth.TRUE,
            lines=[EvidenceLine(file="rank0.log", line=n, text="x") for n in numbers],
        )
        for name, numbers in lines.items()
    ]
    return Verdict(
        id=case_id,
        title=case_id,
        matched=clause_level in ("confirmed", "likely"),
        score=1.0,
        confidence="high",
        level=clause_level,
        clause_level=clause_level,
        facts=facts,
        queries=queries,
        clauses=[ClauseResult(role="require", text="x", truth=Truth.TRUE, weight=1)],
    )


def _absent(case_id: str) -> Verdict:
    v = _verdict(case_id, "none", [], {})
    v.clauses = [ClauseResult(role="require", text="x", truth=Truth.FALSE, weight=1)]
    return v


def _unknown(case_id: str, facts: list[LadderFact] | None = None) -> Verdict:
    v = _verdict(case_id, "none", facts or [], {})
    v.clauses = [ClauseResult(role="require", text="x", truth=Truth.UNKNOWN, weight=1)]
    return v


SHARED = LadderFact(
    query="watchdog",
    strength="shared",
    messages=["pytorch.c10d.watchdog-timeout"],
    siblings=["rival"],
    roles=["require"],
)
OWN = LadderFact(query="script", strength="own", roles=["require"])
WORDS = LadderFact(query="said_hang", strength="words", roles=["require"])


def test_a_shared_message_and_words_alone_reach_possible_while_a_rival_fits() -> None:
    v = _verdict("case", "confirmed", [SHARED, WORDS], {"watchdog": [1]})
    rival = _verdict("rival", "likely", [LadderFact(query="its_own", strength="own")], {})
    judge([v, rival])
    assert v.level == "possible" and not v.matched
    assert v.stopped.startswith("possible, not likely") and v.rivals == ["rival"]


def test_a_shared_message_stays_possible_even_when_its_other_causes_look_absent() -> None:
    """A sibling whose message is missing from an excerpt is not told apart: likely needs a
    printed fact of the case's own."""
    v = _verdict("case", "confirmed", [SHARED, WORDS], {"watchdog": [1]})
    judge([v, _absent("rival")])
    assert v.level == "possible" and not v.matched
    assert v.stopped.startswith("possible, not likely")


def test_an_own_fact_read_from_the_users_words_reaches_possible_only() -> None:
    said = LadderFact(query="script", strength="own", roles=["require"], said=True)
    v = _verdict("case", "confirmed", [said, SHARED], {"script": [3], "watchdog": [1]})
    judge([v, _absent("rival")])
    assert v.level == "possible" and "what the user says" in v.stopped
    # the same fact printed by a program lifts it
    w = _verdict("case", "confirmed", [OWN, SHARED], {"script": [3], "watchdog": [1]})
    judge([w, _absent("rival")])
    assert w.level == "confirmed"


def test_one_fact_without_an_independent_one_is_likely() -> None:
    copy = LadderFact(query="script_again", strength="own", roles=["support"])
    v = _verdict("case", "confirmed", [OWN, copy], {"script": [3], "script_again": [3]})
    judge([v])
    assert v.level == "likely" and "nothing independent" in v.stopped


def test_the_users_words_do_not_corroborate() -> None:
    """A printed fact of the case's own plus a device the user names (a hardware query over
    their notes) is one machine fact: likely, not confirmed."""
    words = LadderFact(query="gpu_model", strength="own", roles=["support"], said=True)
    v = _verdict("case", "confirmed", [OWN, words], {"script": [3], "gpu_model": [7]})
    judge([v])
    assert v.level == "likely" and "nothing independent" in v.stopped


def test_copies_of_one_message_are_one_fact() -> None:
    a = LadderFact(query="a", strength="decisive", messages=["m.x"], roles=["require"])
    b = LadderFact(query="b", strength="decisive", messages=["m.x"], roles=["require"])
    v = _verdict("case", "confirmed", [a, b], {"a": [1], "b": [9]})
    judge([v])
    assert v.level == "likely"


def test_a_rival_with_a_sign_of_its_own_keeps_confirmed_at_likely() -> None:
    v = _verdict("case", "confirmed", [OWN, SHARED], {"script": [3], "watchdog": [1]})
    rival = _unknown("rival", [LadderFact(query="its_own", strength="own")])
    judge([v, rival])
    assert v.level == "likely" and "nothing rules out rival" in v.stopped


def test_own_fact_independent_fact_and_no_rival_standing_is_confirmed() -> None:
    v = _verdict("case", "confirmed", [OWN, SHARED], {"script": [3], "watchdog": [1]})
    judge([v, _absent("rival")])
    assert v.level == "confirmed" and v.stopped == ""


def test_a_rival_not_known_absent_keeps_confirmed_at_likely_even_without_a_sign() -> None:
    """Confirmed needs the other causes of its shared messages known to be false: a rival
    whose proof was not handed over (unknown) is still standing, sign or no sign."""
    w = _verdict("case", "confirmed", [OWN, SHARED], {"script": [3], "watchdog": [1]})
    judge([w, _unknown("rival", [SHARED])])
    assert w.level == "likely" and "nothing rules out rival" in w.stopped


def test_a_status_line_tells_the_case_apart_but_does_not_confirm_it() -> None:
    """A status line the case's `where` made a fact (NCCL chose sockets, the port is RoCE)
    carries likely; confirmed needs something printed that shows the failure itself."""
    status = LadderFact(query="setup", strength="own", status=True, roles=["require"])
    v = _verdict("case", "confirmed", [status, SHARED], {"setup": [3], "watchdog": [1]})
    judge([v, _absent("rival")])
    assert v.level == "likely" and "describes the setup" in v.stopped
    # beside a fact of the case's own it corroborates
    w = _verdict("case", "confirmed", [OWN, status], {"script": [3], "setup": [5]})
    judge([w])
    assert w.level == "confirmed"


def test_the_ladder_is_monotone_on_every_combination() -> None:
    """Whatever it confirms also meets the likely rung: never above the clause level."""
    order = ["none", "possible", "likely", "confirmed"]
    pool = [OWN, SHARED, WORDS]
    for clause_level in ("likely", "confirmed"):
        for mask in range(1, 8):
            facts = [f for i, f in enumerate(pool) if mask >> i & 1]
            fitting = _verdict("rival", "likely", [LadderFact(query="x", strength="own")], {})
            for rival in (_absent("rival"), fitting):
                v = _verdict("case", clause_level, facts, {"script": [3], "watchdog": [1]})
                judge([v, rival])
                assert order.index(v.level) <= order.index(clause_level)
                if v.level == "confirmed":
                    assert any(f.strength in ("own", "decisive") for f in facts)


def test_the_users_words_in_a_cases_own_pattern_stay_possible() -> None:
    """A case's own pattern over notes is what the user says: it tells nothing apart that a
    program printed, so possible at most."""
    said = LadderFact(query="notes_hang", strength="own", said=True, roles=["likely"])
    v = _verdict("case", "confirmed", [SHARED, said], {"watchdog": [1], "notes_hang": [1]})
    v.queries[1].lines[0].file = "notes.md"
    judge([v, _absent("rival")])
    assert v.level == "possible" and "what the user says" in v.stopped


def test_a_rival_that_fits_only_through_the_same_message_is_no_rival() -> None:
    v = _verdict("case", "confirmed", [SHARED, WORDS], {"watchdog": [1]})
    same = LadderFact(query="w", strength="shared", messages=list(SHARED.messages))
    judge([v, _verdict("rival", "likely", [same], {})])
    assert v.level == "possible" and v.rivals == []  # no fact of its own: not named as fitting
    fitting = _verdict("rival", "likely", [LadderFact(query="x", strength="own")], {})
    w = _verdict("case", "confirmed", [SHARED, WORDS], {"watchdog": [1]})
    judge([w, fitting])
    assert w.rivals == ["rival"]


def test_a_rival_its_own_rule_out_rules_out_is_absent() -> None:
    v = _verdict("case", "confirmed", [OWN, SHARED], {"script": [3], "watchdog": [1]})
    rival = _unknown("rival", [LadderFact(query="its_own", strength="own")])
    rival.clauses.append(ClauseResult(role="rule_out", text="x", truth=Truth.TRUE, weight=1))
    judge([v, rival])
    assert v.level == "confirmed"
