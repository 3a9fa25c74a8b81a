"""The README's first lines are the set-up commands, and CI runs its test command verbatim."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "```bash", "the README must open with the set-up commands"
    end = lines.index("```", 1)
    return lines[1:end]


def test_readme_opens_with_two_commands() -> None:
    commands = _readme_commands()
    assert len(commands) == 2
    assert "kb diagnose --evidence examples/" in commands[0]
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert _readme_commands()[1] in ci


def test_readme_example_folder_exists() -> None:
    command = _readme_commands()[0]
    folder = command.split("--evidence", 1)[1].split()[0]
    assert (ROOT / folder).is_dir()
