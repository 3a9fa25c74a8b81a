"""The compiler: checkers are data, cached by content hash, recompiled when a case changes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dsl.api import DEFAULT_CASES
from dsl.compiler import load_knowledge_base

CASE = "nccl-p2p-consumer-gpu-hang"


@pytest.fixture()
def pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "pack"
    shutil.copytree(DEFAULT_CASES / CASE, root / CASE)
    return root


def test_second_load_comes_from_cache(pack: Path) -> None:
    first = load_knowledge_base([pack], with_env=False)
    assert first.cache_hits == 0 and len(first.cases) == 1
    second = load_knowledge_base([pack], with_env=False)
    assert second.cache_hits == 1
    assert second.cases[0].case == first.cases[0].case
    assert second.scan_patterns() == first.scan_patterns()


def test_editing_a_case_recompiles_it(pack: Path) -> None:
    load_knowledge_base([pack], with_env=False)
    case_file = pack / CASE / "case.kb"
    case_file.write_text(
        case_file.read_text(encoding="utf-8").replace("severity high", "severity critical"),
        encoding="utf-8",
    )
    again = load_knowledge_base([pack], with_env=False)
    assert again.cache_hits == 0
    assert again.cases[0].case.severity == "critical"


def test_a_broken_case_is_reported_not_compiled(pack: Path) -> None:
    case_file = pack / CASE / "case.kb"
    case_file.write_text(
        case_file.read_text(encoding="utf-8").replace(
            "pattern /Preparing models, optimizers", "pattern /(Preparing models, optimizers"
        ),
        encoding="utf-8",
    )
    kb = load_knowledge_base([pack], with_env=False)
    assert kb.cases == []
    assert any(d.code == "bad-regex" for d in kb.diagnostics)


def test_plan_shows_patterns_queries_and_condition() -> None:
    kb = load_knowledge_base(with_env=False)
    compiled = kb.get(CASE)
    assert compiled is not None
    plan = compiled.plan()
    assert f"checker {CASE}" in plan
    # a catalogued message compiles to the union of its wordings across releases
    assert f"{CASE}/p2p_channels: /(?:Ring" in plan and "P2P/CUMEM" in plan
    assert "p2p_channels: message: A line of the message `nccl.p2p.channel`" in plan
    assert "require" in plan and "rule_out" in plan
    # the query's one description, the sentence its case page shows, values in backticks
    assert "pcie_only: topology: Every pair of GPUs is connected through `PIX` or" in plan


def test_patterns_are_keyed_by_case_and_query() -> None:
    kb = load_knowledge_base(with_env=False)
    keys = [p.key for p in kb.scan_patterns()]
    assert len(keys) == len(set(keys))
    assert all("/" in k for k in keys)
    ids = {c.case.id for c in kb.cases}
    assert {k.split("/")[0] for k in keys} <= ids


def test_case_text_is_never_evaluated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A regex or command that looks like Python stays data: nothing in it runs."""
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    marker = tmp_path / "pwned"
    folder = tmp_path / "pack" / "evil-case"
    (folder / "fixtures" / "positive" / "a").mkdir(parents=True)
    (folder / "fixtures" / "negative" / "b").mkdir(parents=True)
    payload = f"__import__('pathlib').Path('{marker}').touch()"
    (folder / "case.kb").write_text(
        f'''case evil-case {{
  title "{payload}"
  summary "x"
  evidence e: log {{
    pattern /__import__[(]'pathlib'[)]/
    collect ```bash
    {payload}
    ```
  }}
  match {{
    require e
  }}
}}
''',
        encoding="utf-8",
    )
    kb = load_knowledge_base([folder.parent], with_env=False)
    assert kb.get("evil-case") is not None, [d.message for d in kb.diagnostics]
    kb.get("evil-case").plan()  # type: ignore[union-attr]
    from kb.match.diagnose import diagnose_bundle, read_bundle

    diagnose_bundle(kb, read_bundle(kb, str(folder / "fixtures" / "positive" / "a")))
    assert not marker.exists()
