"""A message the catalogue calls decisive for a case must be read by that case
(kb/lint/catalogued.py, DecisiveMessageNotRead): otherwise a folder that holds it names no
case, though the catalogue knows which cause prints it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from toy_catalogue import installed

from dsl.api import load_cases
from kb.lint import lint_cases

CATALOGUE = """
message toy.decisive {
  emitter nccl
  means "Printed by one cause only."
  role decisive
  causes [toy-case]
  wording "TOY DECISIVE FAILURE {n:int}" { source "src/toy.cc:2@v1" }
}
message toy.shared {
  emitter nccl
  means "Printed by several causes."
  role shared
  causes [toy-case, unknown]
  wording "TOY SHARED FAILURE {n:int}" { source "src/toy.cc:1@v1" }
}
"""

CASE = """
case toy-case {
  title "A toy case"
  summary "A toy."
  cause "Toys."
  evidence proof: message { id IDS }
  match {
    require proof
  }
}
"""

RULE = ["lint/decisive-message-not-read"]


@pytest.fixture
def catalogue(tmp_path: Path) -> Iterator[None]:
    with installed(tmp_path, CATALOGUE):
        yield


def _findings(tmp_path: Path, ids: str) -> list[str]:
    folder = tmp_path / "cases" / "toy-case"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "case.kb").write_text(CASE.replace("IDS", ids), encoding="utf-8")
    result = load_cases([tmp_path / "cases"], with_env=False)
    assert result.ok, result.diagnostics
    return [d.message for d in lint_cases(result.cases, RULE)]


def test_a_decisive_message_the_case_does_not_read_is_reported(
    catalogue: None, tmp_path: Path
) -> None:
    found = _findings(tmp_path, "toy.shared")
    assert len(found) == 1 and "`toy.decisive`" in found[0]


def test_reading_it_clears_the_finding(catalogue: None, tmp_path: Path) -> None:
    assert _findings(tmp_path, "[toy.shared, toy.decisive]") == []


def test_a_shared_message_need_not_be_read(catalogue: None, tmp_path: Path) -> None:
    assert _findings(tmp_path, "toy.decisive") == []
