"""Cases read catalogue facts: a `message` by id with conditions on its fields, the user's
words through the vocabulary (`said`), and known-bad releases (`regression`), end to end
from case text to a verdict, with a catalogue of this test's own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from dsl.catalogue import registry
from dsl.catalogue.load import load_catalogue
from dsl.compiler import load_knowledge_base
from kb.match.diagnose import diagnose_bundle, read_bundle

CATALOGUE = """
message nccl.net-ib.completion-error {
  emitter nccl
  means "A work request completed with an error."
  role shared
  causes [unknown]
  wording "NET/IB : Got completion from peer {peer} with error {status:int}, opcode {op:int}" {
    until "2.19.3"
    source "src/transport/net_ib.cc:1@v2.18.6-1"
  }
  wording "NET/IB : Got completion from peer {peer} with status={status:int} opcode={op:int}" {
    since "2.19.3"
    source "src/transport/net_ib.cc:1@v2.21.5-1"
  }
}
words symptom.hang {
  means "the job stops making progress"
  en [/\\bhang(s|ing)?\\b/i]
  zh [/卡住/]
  sample "it hangs"
}
regression nccl.toy {
  component nccl
  affected ">=2.19.0,<2.19.4"
  fixed_in "2.19.4"
  means "a toy regression"
  source "https://example.org/notes"
}
"""

CASE = """
case toy-ib-retry {
  title "IB retry exceeded"
  summary "An IB completion error with status 12."
  cause "The fabric dropped packets."
  evidence retry: message {
    describe "status 12"
    id nccl.net-ib.completion-error
    where ["status=12"]
  }
  evidence hang: said { words [symptom.hang] }
  evidence bad_nccl: regression { component [nccl] }
  match {
    require retry
    support hang
    support bad_nccl
  }
}
"""


@pytest.fixture
def catalogue(tmp_path: Path) -> Iterator[None]:
    folder = tmp_path / "catalogue"
    folder.mkdir()
    (folder / "toy.kb").write_text(CATALOGUE, encoding="utf-8")
    loaded = load_catalogue([folder], with_env=False)
    assert loaded.diagnostics == []
    with registry.use(loaded.catalogue):
        yield


def _diagnose(tmp_path: Path, files: dict[str, str]) -> dict[str, str]:
    pack = tmp_path / "cases" / "toy-ib-retry"
    pack.mkdir(parents=True, exist_ok=True)
    (pack / "case.kb").write_text(CASE, encoding="utf-8")
    kb = load_knowledge_base([tmp_path / "cases"], with_env=False, use_cache=False)
    assert [d.message for d in kb.diagnostics if d.severity.value == "error"] == []
    evidence = tmp_path / "evidence"
    evidence.mkdir(exist_ok=True)
    for name, text in files.items():
        (evidence / name).write_text(text, encoding="utf-8")
    diagnosis = diagnose_bundle(kb, read_bundle(kb, str(evidence)))
    verdicts = {v.id: v for v in diagnosis.ranked}  # at any level: the facts are the point
    if "toy-ib-retry" not in verdicts:
        return {}
    return {r.name: r.truth.value for r in verdicts["toy-ib-retry"].queries}


OLD = "h:1:2 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with error 12, opcode 0\n"
NEW = "h:1:2 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with status=12 opcode=0\n"
FLUSH = "h:1:2 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with status=5 opcode=0\n"


@pytest.mark.parametrize("line", [OLD, NEW])
def test_every_wording_of_the_message_is_read(catalogue: None, tmp_path: Path, line: str) -> None:
    assert _diagnose(tmp_path, {"rank0.log": line})["retry"] == "true"


def test_a_condition_on_a_field_rules_other_values_out(catalogue: None, tmp_path: Path) -> None:
    assert _diagnose(tmp_path, {"rank0.log": FLUSH}) == {}


def test_the_users_words_are_read_in_either_language(catalogue: None, tmp_path: Path) -> None:
    said = _diagnose(tmp_path, {"rank0.log": NEW, "notes.md": "训练到一半就卡住了\n"})
    assert said["hang"] == "true"
    plain = _diagnose(tmp_path, {"notes.md": "the change was made in Shanghai\n"})
    assert plain.get("hang", "false") != "true"


def test_words_that_deny_an_event_do_not_say_it(catalogue: None, tmp_path: Path) -> None:
    denied = "No training step ran; nothing hung. It does not hang with one GPU.\n训练没有卡住\n"
    assert _diagnose(tmp_path, {"rank0.log": NEW, "notes.md": denied})["hang"] == "false"
    both = "It never crashed, but hangs at step 3.\n"
    assert _diagnose(tmp_path, {"rank0.log": NEW, "notes.md": both})["hang"] == "true"


def test_a_known_bad_release_is_found_in_the_logged_version(
    catalogue: None, tmp_path: Path
) -> None:
    bad = "h:1:2 [0] NCCL INFO NCCL version 2.19.3+cuda12.3\n" + NEW
    assert _diagnose(tmp_path, {"rank0.log": bad})["bad_nccl"] == "true"
    good = "h:1:2 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n" + NEW
    assert _diagnose(tmp_path, {"rank0.log": good})["bad_nccl"] == "false"
    assert _diagnose(tmp_path, {"rank0.log": NEW})["bad_nccl"] == "unknown"


def test_an_unknown_message_id_is_an_error_with_a_suggestion(
    catalogue: None, tmp_path: Path
) -> None:
    pack = tmp_path / "cases" / "toy-ib-retry"
    pack.mkdir(parents=True)
    (pack / "case.kb").write_text(
        CASE.replace("id nccl.net-ib.completion-error", "id nccl.net-ib.completion-eror"),
        encoding="utf-8",
    )
    kb = load_knowledge_base([tmp_path / "cases"], with_env=False, use_cache=False)
    problems = [(d.code, d.help) for d in kb.diagnostics]
    assert ("unknown-message", "did you mean `nccl.net-ib.completion-error`?") in problems
