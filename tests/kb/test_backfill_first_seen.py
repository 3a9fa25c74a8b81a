"""Back-filled first-seen results (scripts/backfill_first_seen.py): each incident is diagnosed
at the commit before the one that stored it, a recorded result is never touched, and `kb eval`
says how many of its first-seen figures were back-filled rather than recorded live."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from pydantic import ValidationError

from kb.cli.eval import first_seen_lines
from kb.evaluation import Evaluation, IncidentResult
from kb.first_seen import recorded, set_first_seen
from kb.incidents import FirstSeen, Incident, read_meta

ROOT = Path(__file__).resolve().parents[2]
META = """source: https://example.org/thread/1
case: some-case
near_miss_of: null   # a comment that must survive
status: likely
established: "What the thread established, in one sentence."
"""


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "backfill_first_seen", ROOT / "scripts" / "backfill_first_seen.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def _add(repo: Path, folder: str, message: str, text: str = META) -> str:
    (repo / folder).mkdir(parents=True, exist_ok=True)
    (repo / folder / "incident.yaml").write_text(text, encoding="utf-8")
    _git(repo, "add", folder)
    _git(repo, "commit", "-q", "-m", message)
    return _git(repo, "rev-parse", "HEAD")


def test_incidents_are_grouped_by_the_commit_before_the_one_that_stored_them(
    tmp_path: Path,
) -> None:
    bf = _script()
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    root = _add(repo, "cases/a/fixtures/positive/in-root", "root commit stores one")
    first = _add(repo, "cases/a/fixtures/positive/one", "stores one")
    second = _add(repo, "cases/a/fixtures/negative/two", "stores two")
    _add(repo, "cases/a/fixtures/positive/one", "edits one", META + "posted_by: reporter\n")
    (repo / "cases/a/fixtures/positive/three").mkdir(parents=True)
    (repo / "cases/a/fixtures/positive/three/incident.yaml").write_text(META, encoding="utf-8")

    # the oldest commit that added it, not the later one that edited it
    assert bf.adding_commit(repo, "cases/a/fixtures/positive/one/incident.yaml") == first
    assert bf.adding_commit(repo, "cases/a/fixtures/positive/three/incident.yaml") is None
    plan = bf.plan(
        repo,
        [
            "cases/a/fixtures/positive/in-root",
            "cases/a/fixtures/positive/one",
            "cases/a/fixtures/negative/two",
            "cases/a/fixtures/positive/three",
        ],
    )
    assert plan.groups == {
        root: ["cases/a/fixtures/positive/one"],
        first: ["cases/a/fixtures/negative/two"],
    }
    assert second not in plan.groups  # the edit of `one` does not move its first-seen state
    assert list(plan.unknown) == ["cases/a/fixtures/positive/in-root"]  # no code before it
    assert plan.uncommitted == ["cases/a/fixtures/positive/three"]  # left to be recorded live
    assert plan.dates["cases/a/fixtures/positive/one"] == _git(
        repo, "log", "-1", "--format=%cs", first
    )


def test_the_ranking_is_matches_then_possible_and_a_report_without_levels_is_refused() -> None:
    bf = _script()
    report = {
        "matches": [{"id": "a", "level": "confirmed"}, {"id": "b", "level": "likely"}],
        "possible": [{"id": "c", "level": "possible"}],
    }
    assert bf.ranked_of(report) == [("a", "confirmed"), ("b", "likely"), ("c", "possible")]
    assert bf.ranked_of({"matches": [], "possible": []}) == []
    # older reports: no `possible` list, no levels; the run falls back to the in-process API
    assert bf.ranked_of({"matches": [{"id": "a", "confidence": "high"}]}) is None
    assert bf.ranked_of({"matches": [{"id": "a"}], "possible": []}) is None


def test_the_entry_point_is_read_from_that_commits_pyproject(tmp_path: Path) -> None:
    bf = _script()
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[project.scripts]\nkb = "kb.cli.main:main"\n', encoding="utf-8"
    )
    assert bf.entry_point(tmp_path) == ("kb.cli.main", "main")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    with pytest.raises(bf.RunError, match="no `kb` script"):
        bf.entry_point(tmp_path)


def test_a_recorded_first_seen_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "incident.yaml"
    live = META + 'first_seen:\n  commit: "0123456789ab"\n  date: "2026-12-02"\n  ranked: []\n'
    path.write_text(live, encoding="utf-8")
    assert recorded(live)
    assert not set_first_seen(path, "fedcba987654", "2026-12-01", [("x", "likely")], True)
    assert not set_first_seen(path, None)
    assert path.read_text(encoding="utf-8") == live


def test_a_backfill_keeps_every_other_line_and_may_replace_unknown(tmp_path: Path) -> None:
    path = tmp_path / "incident.yaml"
    path.write_text(META, encoding="utf-8")
    assert set_first_seen(path, None)
    assert path.read_text(encoding="utf-8") == META + "first_seen: unknown\n"
    assert not recorded(path.read_text(encoding="utf-8"))
    ranked = [("some-case", "likely"), ("other", "possible")]
    assert set_first_seen(path, "fedcba987654", "2026-12-01", ranked, backfilled=True)
    assert path.read_text(encoding="utf-8") == META + (
        'first_seen:\n  commit: "fedcba987654"\n  date: "2026-12-01"\n'
        "  ranked: [[some-case, likely], [other, possible]]\n  backfilled: true\n"
    )
    meta = read_meta(tmp_path)
    assert meta is not None and not isinstance(meta, str)
    assert meta.first_seen == FirstSeen(
        commit="fedcba987654", date="2026-12-01", ranked=ranked, backfilled=True
    )


def test_first_seen_still_refuses_unknown_keys() -> None:
    with pytest.raises(ValidationError):
        FirstSeen.model_validate({"commit": "abcdef1", "date": "x", "ranked": [], "by": "me"})
    assert not FirstSeen(commit="abcdef1", date="x").backfilled  # recorded live by default


def test_kb_eval_says_how_many_first_seen_results_were_backfilled(tmp_path: Path) -> None:
    path = tmp_path / "incident.yaml"
    path.write_text(META, encoding="utf-8")
    meta = read_meta(tmp_path)
    assert meta is not None and not isinstance(meta, str)
    spec = type("Spec", (), {"case_id": "x", "path": "p"})()
    seen = FirstSeen(commit="abcdef1", date="2026-12-01", ranked=[("some-case", "likely")])
    metas = [
        meta.model_copy(update={"first_seen": seen}),
        meta.model_copy(update={"first_seen": seen.model_copy(update={"backfilled": True})}),
        meta.model_copy(update={"first_seen": "unknown"}),
    ]
    now = [("some-case", "confirmed", 1.0)]
    ev = Evaluation(
        results=[IncidentResult(Incident(spec, x), now, "some-case", None) for x in metas]  # type: ignore[arg-type]
    )
    figures = ev.figures()
    assert figures["first_seen"]["incidents"] == 2
    assert figures["first_seen_backfilled"] == 1
    assert figures["first_seen_unknown"] == 1
    head = first_seen_lines(figures)[0]
    assert "2 incidents with a first diagnosis (1 back-filled" in head
    assert "1 unknown" in head
