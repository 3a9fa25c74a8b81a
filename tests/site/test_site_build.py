"""The site builds strictly from the cases, follows them, and cannot be attacked by them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from kbsite_build import mkdocs_build
from kbsite_cases import HOSTILE_ID, SAMPLE_ERROR, SAMPLE_ID, write_case
from kbsite_html import injections, text_of

from dsl.api import load_cases

pytestmark = pytest.mark.slow  # builds the whole site with mkdocs


def _page(site: Path, path: str) -> str:
    return (site / path / "index.html").read_text(encoding="utf-8")


def test_bundled_site_builds_strictly_with_a_page_per_case(bundled_site: Path) -> None:
    result = load_cases()
    assert result.ok
    index = _page(bundled_site, "cases")
    for case in result.cases:
        page = _page(bundled_site, f"cases/{case.id}")
        assert '<dl class="kb-meta">' in page and 'id="fix"' in page, case.id
        assert f"/edit/main/cases/{case.id}/case.kb" in page, case.id
        assert "issues/new?template=wrong-diagnosis.yml" in page and f"got={case.id}" in page
        if any(s.text.zh for s in case.symptoms) or case.summary.zh:
            assert 'lang="zh"' in page, case.id
        assert f'href="{case.id}/"' in index, f"{case.id} missing from the cases index"
    for path in (
        "",
        "find/symptoms",
        "find/components",
        "find/hardware",
        "tags",
        "contributing",
        "find/phases",
        "find/errors",
        "find/errors/ei0002",
    ):
        assert (bundled_site / path / "index.html").is_file(), path


def test_a_new_case_folder_adds_its_page_and_index_entries(
    bundled_site: Path, extra_site: Path
) -> None:
    assert not (bundled_site / "cases" / SAMPLE_ID).exists()
    page = _page(extra_site, f"cases/{SAMPLE_ID}")
    assert "Rank 1 times out waiting for sockets during the first allreduce" in page
    link = f'href="../../cases/{SAMPLE_ID}/"'
    symptoms = _page(extra_site, "find/symptoms")
    assert "Rank 1 alone reports a socket receive timeout at start" in symptoms
    assert "只有 Rank 1 在启动时报 socket 接收超时" in symptoms
    assert SAMPLE_ERROR in symptoms and link in symptoms
    components = _page(extra_site, "find/components")
    assert "site-test-component" in components and link in components
    hardware = _page(extra_site, "find/hardware")
    assert "Site Test Board 9000" in hardware and link in hardware
    assert f'href="{SAMPLE_ID}/"' in _page(extra_site, "cases")
    assert "site-test" in _page(extra_site, "tags")
    search = json.loads((extra_site / "search" / "search_index.json").read_text("utf-8"))
    assert any(doc["location"].startswith(f"cases/{SAMPLE_ID}/") for doc in search["docs"])


def test_case_page_shows_evidence_fixes_and_source(extra_site: Path) -> None:
    page = _page(extra_site, f"cases/{SAMPLE_ID}")
    assert '<dl class="kb-meta">' in page and "What you see" in page
    assert "中文" in page and 'lang="zh"' in page  # English | 中文 tabs
    # The fixture line that the query matches is shown whole, its decisive part marked.
    assert f"<mark>{SAMPLE_ERROR}</mark>" in page
    assert "data-tabs" in page or 'class="tabbed-set' in page
    assert (
        "pip install &quot;accelerate==0.28.0&quot;" in page
        or 'pip install "accelerate==0.28.0"' in text_of(page, "code")
    )
    assert "kb diagnose --evidence ./logs" in text_of(page, "code")
    assert "accelerate&gt;=1.0" in page
    assert 'href="https://example.com/site-test"' in page
    source = text_of(page, "code")
    assert f"case {SAMPLE_ID} {{" in source


def test_search_index_has_no_tab_labels_and_no_varying_parts(bundled_site: Path) -> None:
    search = json.loads((bundled_site / "search" / "search_index.json").read_text("utf-8"))
    texts = [doc["text"] for doc in search["docs"]]
    assert not any(t.startswith(("English中文", "English 中文")) for t in texts)
    assert search["config"]["lang"] == ["en", "zh"]
    joined = " ".join(texts)
    assert "心跳" in joined and "\u200b" in joined  # Chinese, segmented by jieba
    assert not re.search(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", joined)  # no timestamps
    assert not re.search(r"\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b", joined)  # no IPv4


def test_hostile_case_cannot_inject_into_the_site(hostile_site: Path) -> None:
    page = _page(hostile_site, f"cases/{HOSTILE_ID}")
    assert "<script>alert(1)</script>" in text_of(page, "h1")  # shown, as text
    assert "<script>alert(1)</script>" in text_of(page, "title")
    assert "alert(23)" in text_of(page, "code")  # the fixture line, as text
    assert "alert(27)" in text_of(page, "code")  # the command, as text
    assert injections(hostile_site) == []


def test_the_injection_detector_finds_injections(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text("<p>x</p><script>alert(1)</script>", encoding="utf-8")
    (tmp_path / "b.html").write_text('<img src=x onerror="alert(2)">', encoding="utf-8")
    (tmp_path / "c.html").write_text('<a href="javascript:alert(3)">c</a>', encoding="utf-8")
    (tmp_path / "d.html").write_text("<code>&lt;script&gt;alert(4)</code>", encoding="utf-8")
    assert sorted({f.file for f in injections(tmp_path)}) == ["a.html", "b.html", "c.html"]


def test_a_case_with_errors_fails_the_build_with_its_diagnostics(tmp_path: Path) -> None:
    text = 'case broken-case {\n  title "Broken"\n  summery "typo"\n}\n'
    write_case(tmp_path / "cases", "broken-case", text, {})
    result = mkdocs_build(tmp_path / "site", KB_CASES=str(tmp_path / "cases"))
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "broken-case/case.kb:3:3" in output and "summery" in output
    assert "did you mean `summary`?" in output
    assert not (tmp_path / "site" / "index.html").exists()
