"""`kb eval` and the real-incident corpus: metadata is checked, figures are computed from
what the diagnosis really named, and CI holds them to the floors in pyproject.toml."""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import subprocess
from pathlib import Path

import pytest
import tomllib

from dsl.compiler import load_knowledge_base
from kb.cli.eval import BOUNDS, breaches, read_bounds
from kb.cli.main import main
from kb.evaluation import evaluate
from kb.incidents import read_meta

pytestmark = pytest.mark.slow  # measures every case on every stored real incident

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "cases"
P2P = CASES / "nccl-p2p-consumer-gpu-hang"


def test_every_stored_incident_has_valid_metadata() -> None:
    metas = [read_meta(p.parent) for p in CASES.glob("*/fixtures/*/*/incident.yaml")]
    assert len(metas) >= 100
    bad = [m for m in metas if not hasattr(m, "source")]
    assert not bad, bad[:3]


def test_bad_metadata_is_reported_not_raised(tmp_path: Path) -> None:
    (tmp_path / "incident.yaml").write_text("source: ftp://x\ncase: [1\n", encoding="utf-8")
    assert isinstance(read_meta(tmp_path), str)
    (tmp_path / "incident.yaml").write_text(
        "source: not-a-url\ncase: none\nstatus: confirmed\nestablished: long enough text\n",
        encoding="utf-8",
    )
    problem = read_meta(tmp_path)
    assert isinstance(problem, str) and "source" in problem
    assert read_meta(tmp_path / "missing") is None


def test_the_metadata_file_is_not_read_as_evidence(capsys: pytest.CaptureFixture[str]) -> None:
    folder = next(P2P.glob("fixtures/positive/*/incident.yaml")).parent
    assert main(["evidence", str(folder), "--format", "json"]) == 0
    facts = json.loads(capsys.readouterr().out)["facts"]
    assert "incident.yaml" not in {f["path"] for f in facts["files"]}
    assert any(s["path"] == "incident.yaml" for s in facts["skipped"])


def _pack(tmp_path: Path, expected: str, near_miss_of: str | None) -> Path:
    """A one-case pack holding a copy of a real P2P incident, relabelled."""
    case = tmp_path / "pack" / "nccl-p2p-consumer-gpu-hang"
    text = (P2P / "case.kb").read_text(encoding="utf-8")
    head = text[: text.index('\n  fixture "')] + "\n}\n"
    source = P2P / "fixtures" / "positive" / "gh-nccl-tests-117-rtx4090x2-allreduce-perf-hang"
    kind = "negative" if near_miss_of else "positive"
    target = case / "fixtures" / kind / "incident"
    shutil.copytree(source, target)
    (case / "case.kb").write_text(head, encoding="utf-8")
    meta = (
        f"source: https://example.org/thread\ncase: {expected}\n"
        f"near_miss_of: {near_miss_of or 'null'}\nstatus: confirmed\n"
        "established: A relabelled copy for the test.\n"
    )
    (target / "incident.yaml").write_text(meta, encoding="utf-8")
    return case.parent


def test_figures_follow_what_was_named(tmp_path: Path) -> None:
    pack = _pack(tmp_path / "a", "nccl-p2p-consumer-gpu-hang", None)
    ev = evaluate(load_knowledge_base([pack], with_env=False))
    figures = ev.figures()
    assert figures["incidents"] == 1 and figures["top1"] == 1.0 and figures["top3"] == 1.0
    # the same evidence labelled as a near miss of the case it matches is a false positive
    pack = _pack(tmp_path / "b", "none", "nccl-p2p-consumer-gpu-hang")
    ev = evaluate(load_knowledge_base([pack], with_env=False))
    assert ev.figures()["near_miss_likely_or_better"] == 1.0
    assert ev.figures()["uncovered_silent"] == 0


def test_bounds_are_read_and_breaches_named(tmp_path: Path) -> None:
    bounds = read_bounds(ROOT / "pyproject.toml")
    assert bounds["top1"] > 0 and "near_miss_confirmed" in bounds
    figures = {
        "top1": bounds["top1"] - 0.01,
        "top3": 1.0,
        "top1_likely_or_better": 1.0,
        "near_miss_likely_or_better": 0.0,
        "near_miss_confirmed": 0.5,
    }
    found = breaches(figures, bounds)
    assert any(b.startswith("top1 ") for b in found)
    assert any(b.startswith("near_miss_confirmed") for b in found)
    bad = tmp_path / "p.toml"
    bad.write_text("[tool", encoding="utf-8")
    with pytest.raises(ValueError):
        read_bounds(bad)


def test_kb_eval_meets_the_committed_floors(capsys: pytest.CaptureFixture[str]) -> None:
    """The CI gate: real-incident accuracy never falls below what pyproject.toml records."""
    code = main(["eval", "--check", "--format", "json"])
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert code == 0, err
    assert data["schema"] == "kb.eval/v1" and not data["problems"]
    assert data["figures"]["near_miss_confirmed"] == 0.0


def test_the_site_page_shows_the_current_figures() -> None:
    """The "How well it works" page holds `kb eval --calibration`'s own output, and the
    README its headline (fitted and first seen), so they cannot drift."""
    from kb.cli.common import load_kb
    from kb.cli.eval import page_report

    args = argparse.Namespace(cases=[], no_bundled=False, no_cache=False)
    report = page_report(evaluate(load_kb(args)))
    page = (ROOT / "site" / "reference" / "how-well-it-works.md").read_text(encoding="utf-8")
    block = page.split("```text\n", 1)[1].split("\n```", 1)[0]
    assert block == report, "run scripts/update_eval_figures.py"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    head = readme.split("```text\nReal incidents:", 1)[1].split("\n```", 1)[0]
    assert "Real incidents:" + head == "\n".join(report.splitlines()[:14]).rstrip()
    assert "First seen" in head and "Calibration now" in block


def test_floors_are_only_ever_raised() -> None:
    """Along the history of pyproject.toml, no floor went down and no ceiling went up,
    unless the commit that moved it said why under [tool.kb.eval-lowered] (a new reason:
    a figure whose meaning changed, never a quiet regression)."""

    def tables(text: str) -> tuple[dict[str, float], dict[str, str]]:
        kb = tomllib.loads(text).get("tool", {}).get("kb", {})
        bounds = {k.replace("-", "_"): float(v) for k, v in kb.get("eval", {}).items()}
        reasons = {k.replace("-", "_"): str(v) for k, v in kb.get("eval-lowered", {}).items()}
        return bounds, reasons

    def at(rev: str) -> tuple[dict[str, float], dict[str, str]]:
        shown = subprocess.run(
            ["git", "show", f"{rev}:pyproject.toml"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        return tables(shown.stdout)

    log = subprocess.run(
        ["git", "log", "--format=%H", "-n", "50", "--", "pyproject.toml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    revs = log.stdout.split()  # newest first
    current = tables((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    history = [current] + [at(r) for r in revs]
    assert any(b for b, _ in history[1:]), "no committed floors in the history of pyproject.toml"
    for i, ((newer, _), (older, _)) in enumerate(itertools.pairwise(history)):
        for key, value in older.items():
            if key in newer and key in BOUNDS:
                ok = newer[key] >= value if BOUNDS[key] else newer[key] <= value
                # the reason names this very move ("0.88 -> 0.86"), in that commit or later
                move = f"{value:g} -> {newer[key]:g}"
                explained = any(move in why.get(key, "") for _, why in history[: i + 1])
                assert ok or explained, f"{key}: {move} and no reason names it"
