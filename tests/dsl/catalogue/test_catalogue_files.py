"""Catalogue files parse, lower and check; every problem is located and worded."""

from __future__ import annotations

import re
from pathlib import Path

from dsl.api import known_case_ids
from dsl.catalogue.check import check_catalogue
from dsl.catalogue.load import load_catalogue

MESSAGE = """
message nccl.net-ib.completion-error {
  emitter nccl
  severity warn
  means "A work request completed with an error."
  means.zh "工作请求以错误完成。"
  role shared
  causes [nccl-ib-completion-error, unknown]
  fields {
    status "ibv_wc_status"
  }
  wording "NET/IB : Got completion from peer {peer} with error {status:int}, opcode {op:int}" {
    since "2.7.8"
    source "src/transport/net_ib.cc:1050@v2.18.6-1"
  }
  sample "NCCL WARN NET/IB : Got completion from peer 10.1.1.2<50678> with error 12, opcode 3" {
    from "https://github.com/NVIDIA/nccl/issues/426"
  }
}
words symptom.hang {
  means "the job stops making progress"
  en [/\\bhangs?\\b/i]
  zh [/卡住/]
  sample "it hangs at step 1"
}
regression nccl.example {
  component nccl
  affected ">=2.19.0,<2.19.4"
  fixed_in "2.19.4"
  means "something broke"
  signature [nccl.net-ib.completion-error]
  source "https://github.com/NVIDIA/nccl/releases"
}
"""


def _load(tmp_path: Path, text: str) -> tuple[object, list[str]]:
    folder = tmp_path / "catalogue"
    folder.mkdir(exist_ok=True)
    (folder / "a.kb").write_text(text, encoding="utf-8")
    loaded = load_catalogue([folder], with_env=False)
    found = [*loaded.diagnostics, *check_catalogue(loaded.catalogue, known_case_ids())]
    return loaded.catalogue, [f"{d.line}:{d.code}:{d.message}" for d in found]


def test_a_good_file_gives_one_entry_per_declaration(tmp_path: Path) -> None:
    catalogue, problems = _load(tmp_path, MESSAGE)
    assert problems == []
    message = catalogue.messages["nccl.net-ib.completion-error"]  # type: ignore[attr-defined]
    assert message.field_names() == ["peer", "status", "op"]
    assert message.means.zh == "工作请求以错误完成。"
    assert catalogue.words["symptom.hang"].zh[0].pattern == "卡住"  # type: ignore[attr-defined]
    assert catalogue.regressions["nccl.example"].fixed_in == "2.19.4"  # type: ignore[attr-defined]


def test_a_sample_no_wording_matches_is_an_error(tmp_path: Path) -> None:
    text = MESSAGE.replace("with error 12, opcode 3", "with status=12 opcode=3")
    _, problems = _load(tmp_path, text)
    line = MESSAGE[: MESSAGE.index('  sample "NCCL')].count("\n") + 1
    assert any("catalogue/sample-unmatched" in p and p.startswith(f"{line}:") for p in problems)


def test_decisive_needs_exactly_one_cause_and_causes_must_exist(tmp_path: Path) -> None:
    text = MESSAGE.replace("role shared", "role decisive").replace(
        "causes [nccl-ib-completion-error, unknown]", "causes [no-such-case, unknown]"
    )
    _, problems = _load(tmp_path, text)
    assert any("catalogue/decisive-causes" in p for p in problems)
    assert any("unknown-case" in p and "no-such-case" in p for p in problems)


def test_duplicates_unknown_kinds_and_fields_are_located(tmp_path: Path) -> None:
    text = MESSAGE + MESSAGE.split("words symptom.hang")[0] + "\nfoo bar { }\n"
    _, problems = _load(tmp_path, text)
    assert any("duplicate-id" in p and "declared twice" in p for p in problems)
    assert any("unknown-declaration" in p for p in problems)
    text = MESSAGE.replace('status "ibv_wc_status"', 'signal "no wording has it"')
    _, problems = _load(tmp_path, text)
    assert any("catalogue/unknown-field" in p and "`signal`" in p for p in problems)


def test_a_regression_needs_a_version_range_and_known_messages(tmp_path: Path) -> None:
    text = MESSAGE.replace('">=2.19.0,<2.19.4"', '"two nineteen"').replace(
        "signature [nccl.net-ib.completion-error]", "signature [nccl.nope]"
    )
    _, problems = _load(tmp_path, text)
    assert any("not a version range" in p for p in problems)
    assert any("catalogue/unknown-message" in p for p in problems)


def test_a_syntax_error_is_located(tmp_path: Path) -> None:
    _, problems = _load(tmp_path, 'message a.b {\n  emitter nccl\n  means "x"\n')
    assert problems and problems[0].split(":")[1] == "syntax"


def test_the_bundled_catalogue_checks_clean() -> None:
    loaded = load_catalogue(with_env=False)
    found = [*loaded.diagnostics, *check_catalogue(loaded.catalogue, known_case_ids())]
    errors = [d for d in found if d.severity.value == "error"]
    assert errors == []


def test_words_must_not_match_their_counter_examples(tmp_path: Path) -> None:
    text = MESSAGE.replace(
        '  sample "it hangs at step 1"\n',
        '  sample "it hangs"\n  unlike "the change hangs nothing"\n',
    )
    _, problems = _load(tmp_path, text)
    assert any(
        "catalogue/unlike-matched" in p and "the change hangs nothing" in p for p in problems
    )
    fine = MESSAGE.replace(
        '  sample "it hangs at step 1"\n',
        '  sample "it hangs"\n  unlike "I changed the learning rate"\n',
    )
    assert _load(tmp_path, fine)[1] == []


def test_samples_are_checked_as_the_scanner_matches_bytes(tmp_path: Path) -> None:
    # `\b` before a Chinese character at the start of a line: a word boundary for Python's text
    # regex (卡 is a word character there), none for the byte engines the scanner runs (a
    # non-ASCII byte is no word character), so the sample would never be found in a real scan
    text = MESSAGE.replace("zh [/卡住/]", "zh [/\\\\b卡住/]").replace(
        'sample "it hangs at step 1"', 'sample "卡住了"'
    )
    _, problems = _load(tmp_path, text)
    assert any("catalogue/sample-unmatched" in p and "卡住了" in p for p in problems)
    assert re.search(r"\b卡住", "卡住了")  # Python alone would have passed it


def test_after_names_another_message_of_the_same_emitter(tmp_path: Path) -> None:
    """`after` joins lines of one emitter's one failure: an unknown id, the message itself,
    or another emitter's message is refused; a sibling of the same emitter is accepted."""
    second = MESSAGE.split("words symptom.hang")[0].replace(
        "message nccl.net-ib.completion-error", "message nccl.net-ib.summary"
    )
    other = second.replace("nccl.net-ib.summary", "torch.summary").replace(
        "emitter nccl", "emitter pytorch"
    )
    base = MESSAGE + second + other

    def after(ids: str) -> list[str]:
        text = base.replace(
            "message nccl.net-ib.summary {\n", f"message nccl.net-ib.summary {{\n  after [{ids}]\n"
        )
        return [p for p in _load(tmp_path, text)[1] if "catalogue/bad-after" in p]

    assert after("nccl.net-ib.completion-error") == []
    assert any("no-such.message" in p and "no message" in p for p in after("no-such.message"))
    assert any("which is itself" in p for p in after("nccl.net-ib.summary"))
    assert any("a message of `pytorch`" in p for p in after("torch.summary"))
