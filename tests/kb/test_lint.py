"""Each lint rule, with a case that breaks it and the clean case that does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsl.api import load_cases
from kb.lint import RULES, lint_cases

ERROR_LINE = (
    "[rank0]:[E ProcessGroupNCCL.cpp:1316] ncclRemoteError: A call failed possibly "
    "due to a network error or a remote process exiting prematurely."
)
HEALTHY_LINE = "{'loss': 2.3412, 'learning_rate': 1e-05, 'epoch': 0.01}"

CLEAN = """
case lint-probe-remote-error {
  title "NCCL remote error after a peer died"
  summary "Training stops with ncclRemoteError because a peer exited."
  severity high
  tags [network, nccl-error]
  components [nccl, torch]
  references ["https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html"]
  provenance {
    source "https://example.org/incident"
    authors ["kb maintainers"]
  }
  symptom "The job dies with ncclRemoteError" {
    shows [remote_error]
  }
  evidence remote_error: log {
    describe "NCCL reports a remote error"
    pattern /ncclRemoteError: A call failed/
  }
  evidence never_seen: log {
    describe "the very rare thing that rules it out"
    pattern /LINT PROBE RULE OUT MARKER/
  }
  match {
    require remote_error
    rule_out never_seen
  }
  remedy "Find the peer that died" {
    step "Read the other ranks' logs" {
      run ```bash
      grep -l Error rank*.log
      ```
      verify "one rank shows the first error"
    }
  }
}
"""


def make_case(
    root: Path,
    text: str = CLEAN,
    *,
    positive: str | None = ERROR_LINE,
    negative: str | None = HEALTHY_LINE,
    case_id: str = "lint-probe-remote-error",
    fixture_name: str = "two-ranks",
) -> Path:
    folder = root / case_id
    folder.mkdir(parents=True)
    (folder / "case.kb").write_text(
        text.replace("case lint-probe-remote-error {", f"case {case_id} {{"), encoding="utf-8"
    )
    for kind, line in (("positive", positive), ("negative", negative)):
        (folder / "fixtures" / kind).mkdir(parents=True)
        if line is not None:
            fixture = folder / "fixtures" / kind / fixture_name
            fixture.mkdir()
            (fixture / "rank0.log").write_text(f"starting\n{line}\n", encoding="utf-8")
    return folder


def lint(root: Path) -> list[tuple[str, str]]:
    result = load_cases([root], with_env=False)
    assert result.ok, result.diagnostics
    return [(d.code, d.message) for d in lint_cases(result.cases)]


def codes(root: Path) -> set[str]:
    return {code for code, _ in lint(root)}


def test_every_rule_has_code_severity_description() -> None:
    for code, rule in RULES.items():
        assert code.startswith("lint/") and rule.code == code
        assert rule.severity.value in ("error", "warning")
        assert rule.description and "\n" not in rule.description


def test_clean_case_reports_only_the_unexercised_rule_out(tmp_path: Path) -> None:
    make_case(tmp_path)
    assert codes(tmp_path) == {"lint/rule-out-never-hit"}


def test_rule_out_hit_by_a_negative_fixture_is_clean(tmp_path: Path) -> None:
    make_case(tmp_path, negative=ERROR_LINE + "\nLINT PROBE RULE OUT MARKER")
    assert codes(tmp_path) == set()


def test_missing_metadata(tmp_path: Path) -> None:
    text = CLEAN.replace("  severity high\n", "").replace(
        '  references ["https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/'
        'troubleshooting.html"]\n',
        "",
    )
    make_case(tmp_path, text)
    found = [m for c, m in lint(tmp_path) if c == "lint/missing-metadata"]
    assert found == ["case `lint-probe-remote-error` is missing severity, references"]


def test_todo_placeholders_count_as_missing(tmp_path: Path) -> None:
    make_case(
        tmp_path,
        CLEAN.replace('title "NCCL remote error after a peer died"', 'title "TODO: name it"'),
    )
    found = lint(tmp_path)
    assert ("lint/missing-metadata", "case `lint-probe-remote-error` is missing title") in found


def test_placeholder_text(tmp_path: Path) -> None:
    make_case(tmp_path, CLEAN.replace('"one rank shows the first error"', '"TODO: say"'))
    assert "lint/placeholder-text" in codes(tmp_path)


@pytest.mark.parametrize("kind", ["positive", "negative"])
def test_missing_fixture(tmp_path: Path, kind: str) -> None:
    make_case(tmp_path, **{kind: None})  # type: ignore[arg-type]
    found = [m for c, m in lint(tmp_path) if c == "lint/missing-fixture"]
    assert found == [
        f"case `lint-probe-remote-error` has no {kind} fixture folder (fixtures/{kind}/<name>/)"
    ]


def test_evidence_never_hit(tmp_path: Path) -> None:
    text = CLEAN.replace(
        "    require remote_error\n", "    require remote_error\n    support timeout_seen\n"
    ).replace(
        "  match {",
        "  evidence timeout_seen: log {\n    pattern /Watchdog caught collective/\n  }\n  match {",
    )
    make_case(tmp_path, text)
    found = [m for c, m in lint(tmp_path) if c == "lint/evidence-never-hit"]
    assert found == [
        "evidence `timeout_seen` holds on none of the 1 positive fixture(s) of "
        "`lint-probe-remote-error`"
    ]


def test_unverified_step(tmp_path: Path) -> None:
    make_case(tmp_path, CLEAN.replace('      verify "one rank shows the first error"\n', ""))
    found = [m for c, m in lint(tmp_path) if c == "lint/unverified-step"]
    assert found == [
        "step \"Read the other ranks' logs\" of remedy 'Find the peer that died' "
        "has no verification"
    ]


def test_verify_run_counts_as_verification(tmp_path: Path) -> None:
    make_case(
        tmp_path,
        CLEAN.replace(
            '      verify "one rank shows the first error"\n',
            "      verify_run ```bash\n      grep -c Error r.log\n      ```\n",
        ),
    )
    assert "lint/unverified-step" not in codes(tmp_path)


def test_tag_not_kebab_case(tmp_path: Path) -> None:
    make_case(tmp_path, CLEAN.replace("[network, nccl-error]", '[network, "NCCL_Error"]'))
    found = [m for c, m in lint(tmp_path) if c == "lint/tag-not-kebab-case"]
    assert found == ["tag `NCCL_Error` is not kebab-case"]


def test_unknown_component(tmp_path: Path) -> None:
    make_case(tmp_path, CLEAN.replace("[nccl, torch]", "[nccl, torhc]"))
    result = load_cases([tmp_path], with_env=False)
    found = [d for d in lint_cases(result.cases) if d.code == "lint/unknown-component"]
    assert [d.message for d in found] == ["component `torhc` is not a known component"]
    assert found[0].help == "did you mean `torch`?"


def test_fixture_name_not_kebab_case(tmp_path: Path) -> None:
    make_case(tmp_path, fixture_name="Two_Ranks")
    found = [m for c, m in lint(tmp_path) if c == "lint/fixture-name-not-kebab-case"]
    assert found == [
        "fixture folder `positive/Two_Ranks` is not kebab-case",
        "fixture folder `negative/Two_Ranks` is not kebab-case",
    ]


def test_unpaired_translation(tmp_path: Path) -> None:
    text = CLEAN.replace('  summary "', '  title.zh "对端退出后 NCCL 报远程错误"\n  summary "')
    make_case(tmp_path, text)
    found = sorted(m for c, m in lint(tmp_path) if c == "lint/unpaired-translation")
    assert found == [
        "remedy 'Find the peer that died' has no `.zh` twin, but this case has Chinese text",
        'step "Read the other ranks\' logs" has no `.zh` twin, but this case has Chinese text',
        "summary has no `.zh` twin, but this case has Chinese text",
        "symptom 'The job dies with ncclRemoteError' has no `.zh` twin, but this case has "
        "Chinese text",
    ]


def test_shadowed_case(tmp_path: Path) -> None:
    make_case(tmp_path)  # the general case, required line only
    stronger = CLEAN.replace(
        "    require remote_error\n",
        "    require remote_error\n    support remote_error weight 3\n",
    )
    make_case(tmp_path, stronger, case_id="lint-probe-remote-error-b")
    found = [m for c, m in lint(tmp_path) if c == "lint/shadowed-case"]
    assert found == [
        "on its positive fixture `positive/two-ranks`, `lint-probe-remote-error` "
        "ranks first (1.00 vs 1.00)"
    ]


def test_specializes_is_not_shadowing(tmp_path: Path) -> None:
    make_case(tmp_path)
    special = CLEAN.replace(
        "  severity high\n", "  severity high\n  specializes [lint-probe-remote-error]\n"
    )
    make_case(tmp_path, special, case_id="lint-probe-remote-error-special")
    result = load_cases([tmp_path], with_env=False)
    shadowed = {
        d.path.split("/")[-2] for d in lint_cases(result.cases) if d.code == "lint/shadowed-case"
    }
    # the refinement wins on its own evidence (the general case also matching there is
    # legitimate); the general case, whose own fixture cannot tell it from its refinement,
    # is the one reported
    assert shadowed == {"lint-probe-remote-error"}


def test_unreadable_fixture_does_not_crash(tmp_path: Path) -> None:
    folder = make_case(tmp_path)
    bad = folder / "fixtures" / "positive" / "loop"
    bad.mkdir()
    (bad / "self").symlink_to(bad)
    assert "lint/internal" not in codes(tmp_path)


BUNDLED = {
    "accelerate-version-collective-mismatch",
    "collective-mismatch-across-ranks",
    "eval-save-collective-deadlock",
    "nccl-p2p-consumer-gpu-hang",
}


def test_bundled_cases_have_no_lint_errors() -> None:
    cases = [c for c in load_cases(with_env=False).cases if c.id in BUNDLED]
    assert len(cases) == len(BUNDLED)
    errors = [d for d in lint_cases(cases) if d.severity.value == "error"]
    assert errors == []
