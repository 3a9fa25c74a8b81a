"""The site navigation, built after the generated pages are known.

MkDocs would fail a strict build on a `nav:` entry whose page does not exist, and the
language reference is written separately; so the nav is assembled from the files that
are really there. Pages nobody listed are still added, under their folder, except those a
hook marked as not in the navigation (the catalogue's message pages).
"""

from __future__ import annotations

from typing import Any

from mkdocs.structure.files import Files

LANGUAGE_PAGE = "reference/language.md"
FIND_PAGES = (
    "find/phases.md",
    "find/symptoms.md",
    "find/components.md",
    "find/hardware.md",
    "tags.md",
)
ERRORS_INDEX = "find/errors/index.md"
TRIAGE_PAGE = "triage.md"


def build(files: Files, generated: list[str]) -> list[Any]:
    """Home, Cases, Find a case, Reference; titles here are ours, never from a case."""
    present = [f.src_uri for f in files.documentation_pages() if f.inclusion.is_in_nav()]
    have = set(present)
    used: set[str] = set()

    def take(*paths: str) -> list[str]:
        out = [p for p in paths if p in have and p not in used]
        used.update(out)
        return out

    nav: list[Any] = []
    for home in take("index.md"):
        nav.append({"Home": home})
    for start in take(TRIAGE_PAGE):
        nav.append({"Start here": start})
    cases = take("cases/index.md")
    case_pages = take(*[p for p in generated if p.startswith("cases/")])
    if cases or case_pages:
        nav.append({"Cases": [{"All cases": p} for p in cases] + case_pages})
    find: list[Any] = list(take(*FIND_PAGES))
    errors = take(ERRORS_INDEX, *sorted(p for p in generated if p.startswith("find/errors/")))
    if errors:
        find.insert(1, {"By error code and message": errors})
    messages = take("messages/index.md", *sorted(p for p in generated if p.startswith("messages/")))
    if messages:
        find.append({"By message (the catalogue)": messages})
    if find:
        nav.append({"Find a case": find})
    reference = take(LANGUAGE_PAGE)
    reference += take(*sorted(p for p in present if p.startswith("reference/")))
    reference += take("contributing.md")
    if reference:
        nav.append({"Reference": reference})
    nav += [p for p in present if p not in used]
    return nav
