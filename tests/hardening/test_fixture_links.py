"""Issue 29: a fixture folder that is a symbolic link passed `kb check`, ran in `kb test`, and
the site published the lines of the files it pointed to, outside the case."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dsl.compiler import load_knowledge_base
from kb.cli.main import main
from kb.fixtures import fixtures_of
from kb.site import excerpts

REPO = Path(__file__).resolve().parents[2]
CASE = "gpu-ecc-xid-errors"
LINKED = "positive/gh-kohya-sd-scripts-1434-h100x2-ecc-watchdog-rank1"  # declared, lines at :3
OTHER = "positive/gh-jade-hpc-194-one-node-pytorch-ecc-jobs-fail"
SECRET = "OUTSIDE-THE-CASE secret line"


@pytest.fixture
def linked_case(tmp_path: Path) -> Path:
    """A copy of a bundled case whose first declared fixture folder is a link to a folder
    outside the case (a marker line among the lines the fixture declares), and another
    fixture holding a linked file."""
    case = tmp_path / "cases" / CASE
    shutil.copytree(REPO / "cases" / CASE, case)
    outside = tmp_path / "outside"
    shutil.move(case / "fixtures" / LINKED, outside)
    log = outside / "console.log"
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    log.write_text("".join([*lines[:3], SECRET + "\n", *lines[3:]]), encoding="utf-8")
    (case / "fixtures" / LINKED).symlink_to(outside, target_is_directory=True)
    (tmp_path / "secret.log").write_text(SECRET + "\n")
    (case / "fixtures" / OTHER / "stolen.log").symlink_to(tmp_path / "secret.log")
    return case


def _case(folder: Path):  # type: ignore[no-untyped-def]
    kb = load_knowledge_base([folder.parent], with_env=False, use_cache=False)
    compiled = kb.get(CASE)
    assert compiled is not None, [d.message for d in kb.diagnostics]
    return compiled.case


def test_kb_check_reports_each_link_with_its_path(
    linked_case: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["check", str(linked_case)])
    out = capsys.readouterr()
    text = out.out + out.err
    assert code == 1, text
    assert f"fixtures/{LINKED}` is a symbolic link" in text
    assert f"fixtures/{OTHER}/stolen.log` is a symbolic link" in text


def test_kb_test_does_not_run_a_linked_fixture(linked_case: Path) -> None:
    paths = [s.path for s in fixtures_of(_case(linked_case))]
    assert OTHER in paths
    assert LINKED not in paths


def test_the_site_does_not_publish_what_a_link_points_to(linked_case: Path) -> None:
    case = _case(linked_case)
    excerpts.clear()
    shown = [excerpts.excerpt(case, q) for q in case.queries]
    excerpts.clear()
    assert any(shown)  # the case's own fixtures are still shown
    for found in filter(None, shown):
        assert found.fixture != LINKED
        assert not any(SECRET in line for line in found.lines)
