"""Breaking a case's regex makes its fixture tests fail, naming the case and the fixture."""

from __future__ import annotations

import shutil
from pathlib import Path

from dsl.api import DEFAULT_CASES
from dsl.compiler import load_knowledge_base
from kb.fixtures import check_fixture, fixtures_of

CASE = "nccl-p2p-consumer-gpu-hang"


def test_breaking_a_regex_fails_its_positive_fixtures(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    pack = tmp_path / "pack"
    shutil.copytree(DEFAULT_CASES / CASE, pack / CASE)
    case_file = pack / CASE / "case.kb"
    text = case_file.read_text(encoding="utf-8")
    # p2p_channels reads the catalogue's message; made a log query whose regex is mistyped
    ported = """evidence p2p_channels: message {
    describe "NCCL connected GPUs of this machine peer-to-peer (P2P/IPC, P2P/CUMEM or P2P/direct)"
    id nccl.p2p.channel"""
    assert ported in text
    broken = text.replace(
        ported,
        ported.replace("message {", "log {").replace(
            "id nccl.p2p.channel", "pattern /via P2P-NEVER-PRINTED\\//"
        ),
    )
    assert broken != text
    case_file.write_text(broken, encoding="utf-8")
    kb = load_knowledge_base([pack], with_env=False, use_cache=False)
    case = kb.get(CASE)
    assert case is not None
    outcomes = [
        check_fixture(spec, (str(pack),)) for spec in fixtures_of(case.case) if spec.positive
    ]
    failed = [o for o in outcomes if not o.passed]
    assert failed, "a broken p2p regex must break at least one positive fixture"
    message = "\n".join(failed[0].problems)
    assert CASE in message or "p2p_channels" in message
    assert failed[0].spec.path.startswith("positive/")
