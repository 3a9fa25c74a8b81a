"""The composite action at the repository root: valid against GitHub's action schema (the one
check-jsonschema vendors, so the check runs offline), and every option it passes to
`kb triage` is one the command has."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

from kb.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"


def _schema_check(path: Path, schema: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_action_yml_passes_the_github_action_schema() -> None:
    done = _schema_check(ACTION, "vendor.github-actions")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_schema_check_catches_a_broken_action(tmp_path: Path) -> None:
    broken = tmp_path / "action.yml"
    data = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    del data["runs"]["steps"][1]["shell"]  # a composite run step must name its shell
    broken.write_text(yaml.safe_dump(data), encoding="utf-8")
    assert _schema_check(broken, "vendor.github-actions").returncode != 0


def test_action_runs_kb_triage_with_options_it_has() -> None:
    data = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert data["runs"]["using"] == "composite"
    script = next(s["run"] for s in data["runs"]["steps"] if s.get("id") == "triage")
    assert "kb triage" in script
    parser = build_parser("triage")
    sub = next(a for a in parser._actions if a.dest == "command")
    known = {o for a in sub.choices["triage"]._actions for o in a.option_strings}  # type: ignore[attr-defined]
    passed = set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", script))
    assert passed and passed <= known, passed - known
    for name in data["inputs"]:  # every input reaches the script through a variable
        assert f"inputs.{name}" in ACTION.read_text(encoding="utf-8")


def test_readme_workflow_example_passes_the_workflow_schema(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## For maintainers", 1)[1]
    workflow = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert workflow is not None, "the section shows a workflow"
    path = tmp_path / "triage.yml"
    path.write_text(workflow.group(1), encoding="utf-8")
    done = _schema_check(path, "vendor.github-workflows")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "uses: ./" in workflow.group(1) or "distkb" in workflow.group(1)
