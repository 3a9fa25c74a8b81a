"""Case pages never contradict their case: "Not this case if…" names only what rules the
case out, never evidence its own clauses need (a query under `not` in a `rule_out` speaks
for the case); and a case's Chinese tabs are Chinese (English only where the case has no
Chinese for it, and then labelled)."""

from __future__ import annotations

import re

from dsl import model as m
from dsl.api import load_cases
from kb.match.condition import positive_refs
from kb.site import casepage, escape
from kb.site.casepage import rule_out_queries
from kb.site.pages import render_site


def _needed(case: m.Case) -> set[str]:
    return {
        name
        for c in case.condition.clauses
        if c.role is not m.Role.RULING_OUT
        for name, negated in positive_refs(c.expr)
        if not negated
    }


def test_no_bundled_case_page_lists_its_own_evidence_as_a_rule_out() -> None:
    cases = load_cases(with_env=False).cases
    assert cases
    wrong = {
        c.id: sorted(q.name for q in rule_out_queries(c) if q.name in _needed(c)) for c in cases
    }
    assert {k: v for k, v in wrong.items() if v} == {}
    assert any(rule_out_queries(c) for c in cases)  # the pages do list rule-outs


# ------------------------------------------------------------------ Chinese tabs are Chinese

_ZH_BLOCK = re.compile(r'<div lang="zh" markdown="1">(.*?)\n\s*</div>', re.S)
_HAN = re.compile(r"[\u3400-\u9fff]")
_FENCE = re.compile(r"(?ms)^(\s*)(```|~~~).*?^\1\2\s*$")


def english_prose(block: str) -> list[str]:
    """Lines of a Chinese tab that are English prose: no Chinese character, at least four
    English words outside code, links and markup, and not labelled as English fallback.
    Alternative tabs' labels (`=== "…"`) are left out: the case language has no Chinese
    label for them."""
    out = []
    for line in _FENCE.sub("", block).splitlines():
        text = re.sub(r"`[^`]*`|<[^>]+>|\]\([^)]*\)|https?://\S+", " ", line)
        if line.strip().startswith('=== "') or casepage.FALLBACK in line:
            continue
        if not _HAN.search(text) and len(re.findall(r"[A-Za-z]{2,}", text)) >= 4:
            out.append(line.strip())
    return out


def test_the_prose_check_finds_english_and_lets_labelled_fallback_pass() -> None:
    block = (
        "某个 rank 没有进入集合通信\n\nGather the metric first so every rank takes the branch.\n"
        f"{casepage.FALLBACK} Set the timeout on every rank before the first call.\n"
        "```bash\necho this is a command with many words\n```\n- `NCCL WARN Call to connect`"
    )
    assert english_prose(block) == ["Gather the metric first so every rank takes the branch."]


def test_chinese_tabs_hold_no_unlabelled_english_prose() -> None:
    result = load_cases(with_env=False)
    pages = render_site(result)
    with_zh = [c for c in result.cases if casepage.has_zh(c)]
    assert with_zh
    blocks = 0
    found: dict[str, list[str]] = {}
    for case in with_zh:
        page = pages[f"cases/{case.id}.md"]
        for block in _ZH_BLOCK.findall(page):
            blocks += 1
            if english_prose(block):
                found.setdefault(case.id, []).extend(english_prose(block))
            # an option's tab label in a Chinese tab is its label.zh or "做法 N", never English
            for label in re.findall(r'^\s*=== "([^"]*)"', block, re.MULTILINE):
                if not re.search(r"[\u4e00-\u9fff]", label):
                    found.setdefault(case.id, []).append(f"tab label: {label}")
        for r in case.remedies:  # each fix opens its Chinese tab with its Chinese title
            if r.title.zh:
                assert f"**修复：{escape.line(r.title.zh)}**" in page, (case.id, r.title.zh)
    assert blocks >= len(with_zh)
    assert found == {}
