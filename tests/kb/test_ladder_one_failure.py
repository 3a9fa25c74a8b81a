"""Lines of one emitter's one failure are one fact (the catalogue's `after`): a decisive
message and the call failure printed on its way do not confirm each other."""

from __future__ import annotations

from pathlib import Path

from toy_catalogue import installed

from kb.evidence.facts import EvidenceLine
from kb.match.ladder import judge
from kb.match.results import ClauseResult, LadderFact, QueryResult, Truth, Verdict

CATALOGUE = """
message toy.call-failed {
  emitter openmpi
  severity error
  means "a client call failed"
  means.zh "客户端调用失败"
  role shared
  causes [unknown]
  wording "PMI_Get_size failed: {error}" {
    source "toy.c:1@v1"
  }
}
message toy.gave-up {
  emitter openmpi
  severity error
  means "the process gave up"
  means.zh "进程放弃"
  role decisive
  causes [case]
  AFTER
  wording "cannot start without PMI" {
    source "toy.c:2@v1"
  }
}
"""


def _confirmed_candidate() -> Verdict:
    decisive = LadderFact(query="gave_up", strength="decisive", messages=["toy.gave-up"])
    call = LadderFact(query="call", strength="shared", messages=["toy.call-failed"])
    decisive.roles = call.roles = ["require"]
    queries = [
        QueryResult(
            name=name,
            kind="message",
            truth=Truth.TRUE,
            lines=[EvidenceLine(file="rank0.log", line=n, text="x")],
        )
        for name, n in (("gave_up", 2), ("call", 1))
    ]
    return Verdict(
        id="case",
        title="case",
        matched=True,
        score=1.0,
        confidence="high",
        level="confirmed",
        clause_level="confirmed",
        facts=[decisive, call],
        queries=queries,
        clauses=[ClauseResult(role="require", text="x", truth=Truth.TRUE, weight=1)],
    )


def test_two_messages_of_one_failure_do_not_confirm_each_other(tmp_path: Path) -> None:
    with installed(tmp_path, CATALOGUE.replace("AFTER", "after [toy.call-failed]")):
        v = _confirmed_candidate()
        judge([v])
    assert v.level == "likely"
    assert "`call` is the same failure, printed on its way" in v.stopped


def test_two_unrelated_messages_still_confirm(tmp_path: Path) -> None:
    with installed(tmp_path, CATALOGUE.replace("AFTER", "")):
        v = _confirmed_candidate()
        judge([v])
    assert v.level == "confirmed" and v.stopped == ""
