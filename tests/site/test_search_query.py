"""What the search worker is given for what a person types or pastes, and what it indexes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
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


def test_chinese_queries_are_cut_into_the_indexes_words() -> None:
    """The browser has no jieba: a typed 端口被占用 is cut into the index's own words, and a
    piece also asks for the longer indexed words that hold it."""
    words = normalise.han_words(["\u200b端口\u200b被\u200b占用\u200b", "主\u200b端口号 心跳"])
    assert words == ["主", "占用", "心跳", "端口", "端口号", "被"]
    assert normalise.query("端口被占用", words) == "端口^1 端口号^1 被^1 占用"
    assert normalise.query("心跳", words) == "心跳"
    # an unknown character stays a piece of its own; English around it is untouched
    assert normalise.query("rank 3 心跳丢失", words) == "rank^1 3^1 心跳^1 丢^1 失"
    # without the index's words (the first, pre-build script) nothing is cut
    assert normalise.query("端口被占用") == "端口被占用"


def test_the_browser_cuts_chinese_as_python_does(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("needs Node.js to run the site's script")
    words = normalise.han_words(
        ["\u200b端口\u200b被\u200b占用\u200b 主\u200b端口号 心跳 看门狗 超时"]
    )
    lines = ["端口被占用", "主端口被占用了吗", "看门狗超时 rank 1 exitcode 12", "心跳", "ok"]
    (tmp_path / "n.js").write_text(normalise.javascript(words), encoding="utf-8")
    (tmp_path / "h.js").write_text(
        "global.window = global; global.Worker = function () {};"
        "Worker.prototype.postMessage = function () {};"
        f"require({json.dumps(str(tmp_path / 'n.js'))});"
        f"process.stdout.write(JSON.stringify({json.dumps(lines)}.map(window.kbQuery)));",
        encoding="utf-8",
    )
    done = subprocess.run(
        [node, str(tmp_path / "h.js")], capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == [normalise.query(line, words) for line in lines]
