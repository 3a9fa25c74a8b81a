"""Generated Markdown, navigation and the contributing include, without running MkDocs."""

from __future__ import annotations

from pathlib import Path

import pytest
from kbsite_cases import SAMPLE, SAMPLE_FIXTURES, SAMPLE_ID, write_case
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from dsl.api import load_cases
from kb.site import contributing, nav
from kb.site.pages import render_site


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("cases")
    write_case(root, SAMPLE_ID, SAMPLE, SAMPLE_FIXTURES)
    result = load_cases([root], with_env=False)
    assert result.ok, result.diagnostics
    return render_site(result, language_page=True)


def test_generated_pages(pages: dict[str, str]) -> None:
    catalogue = {p for p in pages if p.startswith("messages/")}
    assert "messages/index.md" in catalogue and "messages/nccl.md" in catalogue
    assert set(pages) - catalogue == {
        f"cases/{SAMPLE_ID}.md",
        "cases/index.md",
        "find/symptoms.md",
        "find/components.md",
        "find/hardware.md",
        "find/errors/index.md",
        "find/errors/socket-timeout.md",
        "find/phases.md",
        "triage.md",
    }
    for text in pages.values():
        assert text.startswith("---\ntitle: ")


def test_case_page_markdown_in_the_readers_order(pages: dict[str, str]) -> None:
    page = pages[f"cases/{SAMPLE_ID}.md"]
    assert 'tags:\n  - "hang"\n  - "site-test"' in page
    assert '=== "English"' in page and '=== "中文"' in page
    assert '<div lang="zh" markdown="1">' in page and "首个 allreduce 中 Rank 1 等待" in page
    assert '<dl class="kb-meta">' in page and "<code>accelerate&gt;=1.0</code>" in page
    assert "Site Test Board 9000" in page.split("## What you see")[0]
    # the real line, whole, its decisive part marked, HTML-escaped
    assert "<mark>Wait timeout for sockets recv</mark>" in page
    assert "rank1/plog-1.log:3" in page
    assert "grep -rnF 'Wait timeout for sockets recv' ./logs" in page
    assert '=== "pip"' in page and '=== "conda"' in page
    assert "kb diagnose --evidence ./logs --case " + SAMPLE_ID in page
    assert "```kbcase" in page or "```text" in page
    assert "(../reference/language.md)" in page
    order = [
        '<dl class="kb-meta">',
        "## What you see",
        "## Quick check",
        "## Fix",
        "## Why it happens",
        '??? info "How kb decides"',
        '??? note "The case file"',
        "## References",
    ]
    positions = [page.index(x) for x in order]
    assert positions == sorted(positions), order
    assert "Must hold" not in page.split('??? info "How kb decides"')[0]
    assert "/issues/new?template=wrong-diagnosis.yml" not in page  # no repo_url given


def test_symptom_index_links_symptoms_and_errors(pages: dict[str, str]) -> None:
    index = pages["find/symptoms.md"]
    link = f"(../cases/{SAMPLE_ID}.md)"
    # the case once per box (English, Chinese, error messages), its symptoms under it
    assert index.count(link) == 3
    assert (
        f"{link}**\n            - Rank 1 alone reports a socket receive timeout at start" in index
    )
    assert "Example: `[ERROR] HCCL(12,python): [socket.cc:300] Wait timeout" in index
    assert '<span class="kb-msg">`Wait timeout for sockets recv`</span>' in index


def test_phase_page_draws_a_linked_mermaid_chart(pages: dict[str, str]) -> None:
    page = pages["find/phases.md"]
    assert "```mermaid\n%%{init: " in page and "}}}%%\nflowchart LR\n" in page
    assert f'click C1_0 href "../../cases/{SAMPLE_ID}/"' in page  # "first allreduce"
    assert 'subgraph P1["First step (1)"]' in page
    # boxes show the short title in lines (ids as labels shrank the chart to ~9 px text)
    assert (
        'C1_0("Rank 1 times out<br>waiting for sockets<br>during the first<br>allreduce")' in page
    )
    assert f'("{SAMPLE_ID}")' not in page
    assert "## First step · 第一步 { #first }" in page
    # the list a phone shows instead of the chart: every phase, linked to its section
    assert '<nav class="kb-phase-list"' in page
    assert "- [First step · 第一步](#first) — 1 case\n" in page


def _files(*paths: str) -> Files:
    return Files([File(p, "/nonexistent", "/nonexistent-out", True) for p in paths])


def test_nav_lists_what_exists_and_nothing_else() -> None:
    files = _files(
        "index.md",
        "cases/index.md",
        "cases/b.md",
        "cases/a.md",
        "find/symptoms.md",
        "tags.md",
        "contributing.md",
        "extra.md",
    )
    assert nav.build(files, ["cases/b.md", "cases/a.md"]) == [
        {"Home": "index.md"},
        {"Cases": [{"All cases": "cases/index.md"}, "cases/b.md", "cases/a.md"]},
        {"Find a case": ["find/symptoms.md", "tags.md"]},
        {"Reference": ["contributing.md"]},
        "extra.md",
    ]
    with_language = _files("index.md", nav.LANGUAGE_PAGE, "contributing.md")
    assert nav.build(with_language, [])[-1] == {"Reference": [nav.LANGUAGE_PAGE, "contributing.md"]}


def test_contributing_guide_is_adapted_for_the_site() -> None:
    text = (
        "# Contributing\n\nSee [the cases](cases/README.md) and [docs](https://x.org).\n"
        "![shot](img.png)\n[ref]: docs/x.md\n```md\n[keep](this.md)\n```\n"
    )
    out = contributing.adapt(text)
    assert out.startswith("## Contributing")
    assert "See the cases and [docs](https://x.org)." in out
    assert "img.png" not in out and "[ref]:" not in out
    assert "[keep](this.md)" in out


def test_contributing_page_includes_the_guide(tmp_path: Path) -> None:
    (tmp_path / "CONTRIBUTING.md").write_text("# Guide\n\nRun `kb check`.\n", "utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\n", "utf-8")

    class _Page:
        class file:
            src_uri = "contributing.md"

    config = MkDocsConfig(config_file_path=str(tmp_path / "mkdocs.yml"))
    out = contributing.include_contributing(f"intro\n{contributing.MARKER}\n", _Page(), config)  # type: ignore[arg-type]
    assert "## Guide" in out and "Run `kb check`." in out and contributing.MARKER not in out


def test_a_chart_box_shows_a_short_title_cut_at_a_word(tmp_path: Path) -> None:
    from dsl import model as m
    from kb.site.pages import CHART_LINE, CHART_TITLE, chart_label, short_title

    def case(title: str) -> m.Case:
        root = tmp_path / str(len(list(tmp_path.iterdir())))
        (c,) = load_cases([_sample_root(root, title)], with_env=False).cases
        return c

    long = "NCCL WARN Call to ibv_reg_mr / ibv_create_cq failed (errno 12, Cannot allocate memory) on rank 3"
    short = short_title(case(long))
    assert short == "NCCL WARN Call to ibv_reg_mr / ibv_create_cq failed…", short
    assert len(short) <= CHART_TITLE
    assert short_title(case("Address already in use: the master port is taken")) == (
        "Address already in use"
    )
    assert short_title(case("Ascend: HCCL times out at the first barrier")) == (
        "Ascend: HCCL times out at the first barrier"
    )
    label = chart_label(case(long))
    assert all(len(line) <= CHART_LINE for line in label.split("<br>")), label
    assert label.replace("<br>", " ") == "NCCL WARN Call to ibv_reg_mr / ibv_create_cq failed..."


def _sample_root(root: Path, title: str) -> Path:
    text = SAMPLE.replace(
        'title "Rank 1 times out waiting for sockets during the first allreduce"',
        f'title "{title}"',
        1,
    )
    write_case(root, SAMPLE_ID, text, SAMPLE_FIXTURES)
    return root
