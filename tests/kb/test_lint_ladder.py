"""The ladder's lint rules: a case whose proof the confidence ladder always holds back is
said when it is written (kb/lint/ladder.py), and an author may accept it with a reason."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from toy_catalogue import installed

from dsl.api import load_cases
from kb.lint import lint_cases

CATALOGUE = """
message toy.shared {
  emitter nccl
  means "Printed by several causes."
  role shared
  causes [toy-case, toy-rival, unknown]
  wording "TOY SHARED FAILURE {n:int}" { source "src/toy.cc:1@v1" }
}
message toy.decisive {
  emitter nccl
  means "Printed by one cause only."
  role decisive
  causes [toy-case]
  wording "TOY DECISIVE FAILURE {n:int}" { source "src/toy.cc:2@v1" }
}
"""

CASE = """
case toy-case {
  title "A toy case"
  summary "A toy."
  cause "Toys."
  evidence shared: message { id toy.shared }
  evidence decisive: message { id toy.decisive }
  evidence own: log { pattern /TOY OWN LINE/ }
  match {
    MARK
    require REQUIRE
    support shared or decisive or own
  }
}
"""

RULES = ["lint/ladder-never-confirmed", "lint/ladder-proof-without-own-fact"]


@pytest.fixture
def catalogue(tmp_path: Path) -> Iterator[None]:
    with installed(tmp_path, CATALOGUE):
        yield


def _codes(tmp_path: Path, require: str, mark: str = "") -> list[str]:
    folder = tmp_path / "cases" / "toy-case"
    folder.mkdir(parents=True, exist_ok=True)
    text = CASE.replace("REQUIRE", require).replace("MARK", mark)
    (folder / "case.kb").write_text(text, encoding="utf-8")
    result = load_cases([tmp_path / "cases"], with_env=False)
    assert result.ok, result.diagnostics
    return sorted(d.code for d in lint_cases(result.cases, RULES))


def test_a_proof_of_shared_messages_only_can_never_be_confirmed(
    catalogue: None, tmp_path: Path
) -> None:
    assert _codes(tmp_path, "shared") == ["lint/ladder-never-confirmed"]


def test_a_proof_that_holds_on_a_shared_message_alone_is_warned(
    catalogue: None, tmp_path: Path
) -> None:
    assert _codes(tmp_path, "shared or own") == ["lint/ladder-proof-without-own-fact"]


def test_a_proof_with_a_fact_of_its_own_is_clean(catalogue: None, tmp_path: Path) -> None:
    assert _codes(tmp_path, "shared and own") == []
    assert _codes(tmp_path, "decisive") == []


def test_an_author_may_accept_the_cap_with_a_reason(catalogue: None, tmp_path: Path) -> None:
    mark = "# ladder: the shared line is all a user ever has; show_toys tells them apart"
    assert _codes(tmp_path, "shared", mark) == []
    assert _codes(tmp_path, "shared or own", mark) == []
