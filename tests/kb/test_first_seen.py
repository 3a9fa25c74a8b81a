"""First-seen results: written once per incident from the committed code, never re-measured,
and `kb eval` reports them apart from the fitted figure."""

from __future__ import annotations

import shutil
from pathlib import Path

from kb.evaluation import Evaluation, IncidentResult
from kb.first_seen import first_seen_yaml, has_first_seen, record
from kb.incidents import FirstSeen, Incident, read_meta

ROOT = Path(__file__).resolve().parents[2]
P2P = ROOT / "cases" / "nccl-p2p-consumer-gpu-hang"


def _incident_copy(tmp_path: Path) -> Path:
    source = next(P2P.glob("fixtures/positive/*/incident.yaml")).parent
    target = tmp_path / "incident"
    shutil.copytree(source, target)
    text = (target / "incident.yaml").read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if not ln.startswith(("first_seen", "  "))]
    (target / "incident.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def test_the_first_diagnosis_is_written_once_and_then_kept(tmp_path: Path) -> None:
    folder = _incident_copy(tmp_path)
    said = record([folder], "0123456789ab", "2026-12-02")
    assert said[0].startswith(f"{folder}: first seen at 0123456789ab: nccl-p2p-consumer-gpu-hang")
    meta = read_meta(folder)
    assert not isinstance(meta, str) and meta is not None
    assert isinstance(meta.first_seen, FirstSeen)
    assert meta.first_seen.commit == "0123456789ab" and meta.first_seen.date == "2026-12-02"
    assert meta.first_seen.ranked[0][0] == "nccl-p2p-consumer-gpu-hang"
    before = (folder / "incident.yaml").read_text(encoding="utf-8")
    again = record([folder], "ffffffffffff", "2027-01-01")
    assert again == [f"{folder}: already has a first-seen result, kept"]
    assert (folder / "incident.yaml").read_text(encoding="utf-8") == before


def test_the_yaml_block_reads_back() -> None:
    block = first_seen_yaml("abcdef1", "2026-12-02", [("a-case", "likely"), ("b-case", "possible")])
    assert has_first_seen(block)
    seen = FirstSeen.model_validate(
        {"commit": "abcdef1", "date": "2026-12-02", "ranked": [["a-case", "likely"]]}
    )
    assert seen.ranked == [("a-case", "likely")]


def test_first_seen_figures_come_from_the_recorded_answers_not_from_today(tmp_path: Path) -> None:
    folder = _incident_copy(tmp_path)
    meta = read_meta(folder)
    assert meta is not None and not isinstance(meta, str)
    wrong_then = meta.model_copy(
        update={
            "first_seen": FirstSeen(
                commit="abcdef1", date="2026-01-01", ranked=[("other-case", "confirmed")]
            )
        }
    )
    unknown = meta.model_copy(update={"first_seen": "unknown"})
    spec = type("Spec", (), {"case_id": "x", "path": "p"})()
    right_now = [(meta.case, "confirmed", 1.0)]
    ev = Evaluation(
        results=[
            IncidentResult(Incident(spec, wrong_then), right_now, meta.case, None),  # type: ignore[arg-type]
            IncidentResult(Incident(spec, unknown), right_now, meta.case, None),  # type: ignore[arg-type]
        ]
    )
    figures = ev.figures()
    assert figures["top1"] == 1.0  # fitted: both right today
    assert figures["first_seen"]["incidents"] == 1
    assert figures["first_seen"]["top1"] == 0.0  # first seen: it named another case
    assert figures["first_seen"]["confirmed_wrong"] == 1
    assert figures["first_seen_unknown"] == 1
