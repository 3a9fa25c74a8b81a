"""Every catalogue message renders on the site: its meaning, role, causes, each wording with
its releases, its samples; values from the catalogue are escaped, never markup."""

from __future__ import annotations

from dsl.api import load_cases
from dsl.catalogue import model as cm
from dsl.catalogue.load import load_catalogue
from dsl.values import Text
from kb.site.catalogue_pages import INDEX, catalogue_pages, emitter_path, message_section


def test_every_bundled_message_renders_with_every_wording() -> None:
    catalogue = load_catalogue(with_env=False).catalogue
    assert len(catalogue.messages) >= 600
    pages = catalogue_pages(catalogue, load_cases().cases)
    assert INDEX in pages
    for msg in catalogue.messages.values():
        page = pages[emitter_path(msg.emitter)]
        assert f"## `{msg.id}` {{ #{msg.id.replace('.', '-')} }}" in page, msg.id
        section = page[page.index(f"## `{msg.id}`") :]
        for wording in msg.wordings:
            shown = wording.template if wording.template is not None else ""
            assert shown.split("{")[0].strip()[:20] in section, (msg.id, shown)


def test_values_are_escaped() -> None:
    msg = cm.Message(
        id="x.y.z",
        emitter="nccl",
        means=Text(en="a <script>alert(1)</script> | *bold*"),
        role="shared",
        causes=["unknown"],
        wordings=[cm.Wording(template="left | right {a:int} `tick`", regex="x", since="2.7")],
        samples=[cm.Sample(text="```\nfence", origin="javascript:alert(1)")],
    )
    section = message_section(msg, {})
    assert "<script>" not in section
    assert "\\*bold\\*" in section
    assert "- `` left | right {a:int} `tick` ``: 2\\.7 and later" in section  # a list, no table
    assert "[javascript" not in section  # a non-http origin is shown as code, not linked
    assert "a cause no case covers yet" in section
