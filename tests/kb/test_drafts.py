"""Drafts cannot hijack a diagnosis: a case that still reads TODO, or that holds on lines any
failed job prints, fails `kb check` with its line and a caret and is left out of `kb diagnose`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dsl.api import load_cases
from kb.cli.main import main
from kb.lint import lint_cases
from kb.lint.drafts import GENERIC_LINES

# A failed job whose only distinctive line is the user's own KeyError: the traceback header
# is its most frequent error line, which is what the draft proposed to require.
TRACEBACK_RANK = """\
[rank{r}]: Traceback (most recent call last):
[rank{r}]:   File "/home/user/train.py", line 42, in <module>
[rank{r}]:     main()
[rank{r}]: KeyError: 'vision_tower'
"""
# An unrelated failure: a store timeout, also printed under a traceback header.
UNRELATED = """\
Traceback (most recent call last):
  File "/opt/app/run.py", line 7, in <module>
    torch.distributed.init_process_group("nccl")
torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined.
"""

WRITTEN = """
case generic-probe {
  title "A probe case"
  summary "A probe."
  severity high
  components [torch]
  references ["https://example.org/probe"]
  provenance {
    source "https://example.org/probe"
    authors ["kb maintainers"]
  }
  symptom "It fails" {
    shows [probe]
  }
  evidence probe: log {
    describe "the probe line"
    pattern /PATTERN/
  }
  match {
    CLAUSE
  }
  remedy "Fix it" {
    step "Do it" {
      verify "it works"
    }
  }
}
"""


@pytest.fixture()
def traceback_evidence(tmp_path: Path) -> Path:
    folder = tmp_path / "evidence" / "keyerror"
    folder.mkdir(parents=True)
    for r in (0, 1):
        (folder / f"rank{r}.log").write_text(TRACEBACK_RANK.format(r=r), encoding="utf-8")
    return folder


def _draft(tmp_path: Path, evidence: Path) -> Path:
    pack = tmp_path / "pack"
    assert main(
        ["new", "keyerror-draft", "--cases", str(pack), "--from-evidence", str(evidence)]
    ) in (0, 1)
    return pack


def test_a_traceback_draft_fails_check_with_the_line_and_a_caret(
    tmp_path: Path, traceback_evidence: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = _draft(tmp_path, traceback_evidence)
    capsys.readouterr()
    assert main(["check", str(pack)]) == 1
    out = capsys.readouterr().out
    text = (pack / "keyerror-draft" / "case.kb").read_text(encoding="utf-8").splitlines()
    title_line = next(i for i, line in enumerate(text, 1) if line.startswith("  title "))
    assert f"case.kb:{title_line}:3: error: title is still a placeholder" in out
    # every reason carries path:line:col, the line and a caret
    blocks = [b for b in out.split("\n\n") if ": error: " in b]
    assert blocks
    for block in blocks:
        head, shown, caret = block.strip("\n").splitlines()[:3]
        assert head.startswith(f"{pack}/keyerror-draft/case.kb:"), head
        assert shown.lstrip()[0].isdigit() and " | " in shown
        assert caret.strip().startswith("^")


def test_a_generic_require_is_an_error_at_its_pattern(tmp_path: Path) -> None:
    text = WRITTEN.replace("PATTERN", r"Traceback \(most recent call last\):").replace(
        "CLAUSE", "require probe"
    )
    (tmp_path / "generic-probe").mkdir()
    (tmp_path / "generic-probe" / "case.kb").write_text(text, encoding="utf-8")
    result = load_cases([tmp_path], with_env=False)
    assert result.ok, result.diagnostics
    found = [d for d in lint_cases(result.cases) if d.code == "lint/generic-evidence"]
    assert [(d.severity.value, d.line, d.column) for d in found] == [("error", 17, 13)]
    assert "'Traceback (most recent call last):'" in found[0].message


@pytest.mark.parametrize("line", GENERIC_LINES)
def test_every_generic_line_makes_a_require_generic(tmp_path: Path, line: str) -> None:
    import re

    pattern = re.escape(line).replace("/", r"\/")
    text = WRITTEN.replace("PATTERN", pattern).replace("CLAUSE", "require probe")
    (tmp_path / "generic-probe").mkdir()
    (tmp_path / "generic-probe" / "case.kb").write_text(text, encoding="utf-8")
    result = load_cases([tmp_path], with_env=False)
    assert result.ok, result.diagnostics
    assert "lint/generic-evidence" in {d.code for d in lint_cases(result.cases)}


@pytest.mark.parametrize(
    "pattern, clause",
    [
        (r"KeyError: 'vision_tower'", "require probe"),  # the line that tells it apart
        (r"exitcode: -11", "require probe"),  # a signal, not a bare exit status
        (r"Traceback", "support probe\n    require not probe"),  # generic only as support
    ],
)
def test_a_specific_require_is_not_generic(tmp_path: Path, pattern: str, clause: str) -> None:
    text = WRITTEN.replace("PATTERN", pattern).replace("CLAUSE", clause)
    (tmp_path / "generic-probe").mkdir()
    (tmp_path / "generic-probe" / "case.kb").write_text(text, encoding="utf-8")
    result = load_cases([tmp_path], with_env=False)
    assert result.ok, result.diagnostics
    assert "lint/generic-evidence" not in {d.code for d in lint_cases(result.cases)}


def test_a_draft_never_names_the_cause_of_an_unrelated_failure(
    tmp_path: Path, traceback_evidence: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = _draft(tmp_path, traceback_evidence)
    unrelated = tmp_path / "unrelated"
    unrelated.mkdir()
    (unrelated / "console.log").write_text(UNRELATED, encoding="utf-8")
    capsys.readouterr()
    main(["diagnose", "--cases", str(pack), "--evidence", str(unrelated), "--format", "json"])
    out = capsys.readouterr()
    import json

    ids = [m["id"] for m in json.loads(out.out)["matches"]]
    assert "keyerror-draft" not in ids
    assert "case `keyerror-draft` is an unfinished draft, left out of the diagnosis" in out.err
    assert "Traceback" not in out.err.replace("Traceback (most recent", "")


def test_the_fleet_loader_leaves_drafts_out_too(tmp_path: Path, traceback_evidence: Path) -> None:
    from kb.batch.task import load_kb

    pack = _draft(tmp_path, traceback_evidence)
    kb = load_kb([str(pack)], use_cache=False)
    assert kb.get("keyerror-draft") is None
    assert any("keyerror-draft` is an unfinished draft" in d.message for d in kb.diagnostics)


def test_a_draft_is_still_left_out_when_its_verdict_comes_from_the_cache(
    tmp_path: Path,
    traceback_evidence: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The draft check is cached beside the compiled case; the cached answer is the same,
    and finishing the draft (a new file) is seen at once."""
    from kb.lint import drafts

    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    pack = _draft(tmp_path, traceback_evidence)
    args = ["diagnose", "--cases", str(pack), "--evidence", str(traceback_evidence)]
    main(args)
    first = capsys.readouterr().err
    assert "keyerror-draft` is an unfinished draft" in first

    def unreachable(case: object) -> list[object]:
        raise AssertionError("the cached answer was not used")

    monkeypatch.setattr(drafts, "draft_problems", unreachable)
    main(args)
    assert "keyerror-draft` is an unfinished draft" in capsys.readouterr().err
    case_file = pack / "keyerror-draft" / "case.kb"
    case_file.write_text(case_file.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="cached answer was not used"):
        main(args)  # a changed file is checked again
