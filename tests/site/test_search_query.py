"""What the search worker is given for what a person types or pastes, and what it indexes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from kbsite_build import REPO

from kb.site import normalise
from kb.site.catalogue_pages import SEARCH_BOOST, catalogue_pages, message_page_paths


class _Loader(yaml.SafeLoader):
    """mkdocs.yml's own tags (!ENV, !!python/name) read as nothing."""


_Loader.add_multi_constructor("", lambda loader, suffix, node: None)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def _search_config() -> dict[str, Any]:
    config = yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)
    found = [p["search"] for p in config["plugins"] if isinstance(p, dict) and "search" in p]
    assert found, "mkdocs.yml has no search plugin settings"
    return dict(found[0])


def test_the_index_and_the_queries_split_words_alike() -> None:
    assert _search_config()["separator"] == normalise.SEPARATOR


def test_titles_and_tags_do_not_outweigh_the_text_a_thousandfold() -> None:
    fields = _search_config()["fields"]
    assert fields["title"]["boost"] <= SEARCH_BOOST and fields["tags"]["boost"] <= SEARCH_BOOST


def test_short_numbers_codes_and_paths_are_words() -> None:
    assert normalise.query("rank 1") == "rank 1"
    assert normalise.query("cuda:1") == "cuda 1"
    assert normalise.query("EI0002") == "EI0002"
    # a pasted path or `errno: 98` is words, never lunr field or presence syntax
    q = normalise.query("/usr/lib/libnccl-net.so: cannot open (errno: 98) +x ~y ^z *")
    assert not re.search(r"[:+~*/()]|(?<!\w)\^|\^(?!1)", q), q
    assert q.split()[:4] == ["usr^1", "lib^1", "libnccl^1", "net^1"]


def test_a_pasted_line_is_matched_word_for_word() -> None:
    line = "[rank1]:[E ProcessGroupNCCL.cpp:566] Watchdog caught collective operation timeout"
    words = normalise.query(line).split()
    assert words[0] == "E^1" and "ProcessGroupNCCL^1" in words and "566^1" in words
    assert words[-1] == "timeout"  # the last word may still be being typed: a prefix
    assert normalise.query(line + " ").split()[-1] == "timeout^1"
    assert normalise.query("Address already in u").split()[-1] == "u"


def test_chinese_and_english_together() -> None:
    words = normalise.query("执行中报错：RuntimeError: Address already in use").split()
    assert words[:2] == ["执行中报错^1", "RuntimeError^1"]


def test_varying_parts_leave_the_query_but_numbers_stay_in_the_index() -> None:
    line = "2024-08-12T10:11:12 node-3 the master port (29500) is taken on 10.0.0.1:29500"
    assert "29500" not in normalise.query(line)
    kept = normalise.normalise_indexed(line)
    assert "(29500)" in kept and "2024-08-12" not in kept and "10.0.0.1" not in kept


def test_catalogue_pages_carry_the_search_boost(tmp_path: Path) -> None:
    from dsl.api import load_cases
    from dsl.catalogue.load import load_default

    catalogue = load_default()
    pages = catalogue_pages(catalogue, list(load_cases(with_env=False).cases))
    message_pages = message_page_paths(catalogue)
    assert len(message_pages) == len(catalogue.messages) and message_pages <= set(pages)
    for path in message_pages:
        head = pages[path].split("---", 2)[1]
        assert yaml.safe_load(head)["search"]["boost"] == SEARCH_BOOST, path
