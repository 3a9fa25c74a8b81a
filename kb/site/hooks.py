"""MkDocs hook: generate case pages and indexes from `cases/` on every build.

Kept thin: loading and failing loudly here, rendering in `kb.site.pages`, navigation in
`kb.site.nav`. Set `KB_SITE_CASES` (os.pathsep-separated folders) to build from other
case folders than the bundled `cases/`; `KB_CASES` adds folders, as everywhere in kb.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page

from dsl.api import DEFAULT_CASES, LoadResult, case_paths_from_env, load_cases
from dsl.catalogue import registry as catalogue_registry
from dsl.diagnostics import Severity, render_all
from kb.site import (
    casepage,
    catalogue_pages,
    fixture_messages,
    nav,
    normalise,
    paste,
    paste_messages,
    search_index,
    search_worker,
)
from kb.site.contributing import include_contributing
from kb.site.pages import TEMPLATES, render_site

NORMALISE_JS = "javascripts/kb-normalise.js"
PASTE_JS = "javascripts/kb-paste.js"

log = logging.getLogger("mkdocs.hooks.kb")

_pages: dict[str, str] = {}


def case_roots() -> list[Path]:
    """The case folders to build from: `KB_SITE_CASES`, else the bundled `cases/`."""
    raw = os.environ.get("KB_SITE_CASES", "")
    roots = [Path(p) for p in raw.split(os.pathsep) if p.strip()]
    return roots or [DEFAULT_CASES]


def load() -> LoadResult:
    """Load the cases; errors abort the build with every diagnostic, warnings are logged."""
    result = load_cases(case_roots())
    errors = [d for d in result.diagnostics if d.severity is Severity.ERROR]
    warnings = [d for d in result.diagnostics if d.severity is Severity.WARNING]
    if warnings:
        log.warning("case warnings:\n%s", render_all(warnings, result.sources))
    if errors:
        raise PluginError(
            f"{len(errors)} error(s) in the cases; the site is not built:\n\n"
            + render_all(errors, result.sources)
        )
    return result


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    global _pages
    language = Path(config.docs_dir, nav.LANGUAGE_PAGE).is_file()
    result = load()
    _pages = render_site(result, language_page=language, repo_url=config.repo_url)
    _pages[NORMALISE_JS] = normalise.javascript()
    cases = list(result.cases)
    catalogue = catalogue_registry.current()
    messages = paste_messages.data(catalogue, cases, fixture_messages.counts(cases))
    _pages[PASTE_JS] = paste.javascript(cases, messages)
    log.info("kb: %d pages generated from the cases", len(_pages))
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    # a page per catalogue message: reached from its emitter's list and from search, not
    # listed in the navigation (nearly a thousand entries repeated on every page)
    unlisted = catalogue_pages.message_page_paths(catalogue_registry.current())
    for path, content in _pages.items():
        existing = files.get_file_from_path(path)
        if existing is not None:
            raise PluginError(f"site/{path} would hide a generated page; remove it")
        inclusion = InclusionLevel.NOT_IN_NAV if path in unlisted else InclusionLevel.UNDEFINED
        files.append(File.generated(config, path, content=content, inclusion=inclusion))
    config["nav"] = nav.build(files, [p for p in _pages if p.endswith(".md")])
    return files


def on_page_context(context: Any, page: Page, config: MkDocsConfig, nav: Any) -> Any:
    """Edit links: a case page edits its case file; other generated pages have no source."""
    src = page.file.src_uri
    if src in _pages:
        case_id = src.removeprefix("cases/").removesuffix(".md")
        page.edit_url = None
        if src.startswith("cases/") and src != "cases/index.md" and config.repo_url:
            page.edit_url = casepage.edit_url(config.repo_url, case_id)
    return context


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Tab labels ("English", "中文") stay out of the search index."""
    return search_index.exclude_tab_labels(html)


@event_priority(-100)  # after the search plugin has written its index
def on_post_build(config: MkDocsConfig) -> None:
    words = search_index.normalise_index(Path(config.site_dir))
    if any(name.split("/")[-1] == "search" for name in config.plugins):
        try:
            search_worker.fix_worker(Path(config.site_dir))
        except search_worker.WorkerNotFound as err:
            raise PluginError(f"kb: {err}") from err
    # the query script again, now with the index's Chinese words to cut queries into
    script = Path(config.site_dir) / NORMALISE_JS
    if script.is_file():
        script.write_text(normalise.javascript(words), encoding="utf-8")
        log.info("kb: %d Chinese words for cutting queries", len(words))


_LANGUAGE_LINK = re.compile(r"\[([^\]\n]+)\]\((?:\.\./)*reference/language\.md[^)\s]*\)")


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Include CONTRIBUTING.md; unlink the language reference while it is not written."""
    if files.get_file_from_path(nav.LANGUAGE_PAGE) is None:
        markdown = _LANGUAGE_LINK.sub(r"\1", markdown)
    return include_contributing(markdown, page, config)


def on_serve(server: Any, config: MkDocsConfig, builder: Any) -> Any:
    """`mkdocs serve` rebuilds when a case, a fixture or a template changes."""
    for root in [*case_roots(), *case_paths_from_env(), TEMPLATES]:
        if root.exists():
            server.watch(str(root))
    return server
