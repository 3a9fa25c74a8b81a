"""Escaping of case text into Markdown, and the plain-words rendering of queries."""

from __future__ import annotations

import re

import markdown
import pytest

from dsl import model as m
from kb.site import describe, escape


def _html(source: str) -> str:
    md = markdown.Markdown(
        extensions=[
            "pymdownx.escapeall",
            "attr_list",
            "admonition",
            "pymdownx.superfences",
            "pymdownx.tabbed",
        ]
    )
    return md.convert(source)


@pytest.mark.parametrize(
    "hostile",
    [
        "<script>alert(1)</script>",
        "[click](javascript:alert(1))",
        "![x](javascript:alert(1))",
        "<img src=x onerror=alert(1)>",
        "para {: onclick=alert(1) }",
        '# not a heading\n    not code\n```\nnot a fence\n```\n!!! note\n=== "tab"',
        "&lt;script&gt; &amp; <https://example.com>",
    ],
)
def test_prose_renders_as_the_literal_text(hostile: str) -> None:
    html = _html(escape.text(hostile))
    assert "<script" not in html and "<img" not in html and "<a " not in html
    assert not re.search(r"<[^>]*\son\w+\s*=", html), html
    assert "<h1" not in html and "<pre" not in html and "admonition" not in html
    assert "tabbed" not in html


def test_prose_keeps_backtick_code_as_code() -> None:
    html = _html(escape.text("call `prepare()` then <b>"))
    assert "<code>prepare()</code>" in html and "&lt;b&gt;" in html


def test_code_span_and_fence_outlast_any_backticks_inside() -> None:
    span = escape.code("a `` b")
    assert span.startswith("```") and _html(span).count("<code>") == 1
    block = escape.fence("echo ```\n</code><script>x</script>\n````", "bash")
    assert block.startswith("`````bash\n") and block.endswith("\n`````")
    html = _html(block)
    assert "<script>" not in html and "&lt;/code&gt;&lt;script&gt;" in html


def test_unknown_fence_language_falls_back_to_text() -> None:
    assert escape.fence("x", 'bash" onclick="x').startswith("```text\n")


def test_links_only_for_http_urls() -> None:
    assert escape.link("r", "https://example.com/a b") == "[r](https://example.com/a%20b)"
    assert escape.link("r", "javascript:alert(1)") == "`javascript:alert(1)`"
    assert "javascript" not in _html(escape.link("r", "JaVaScRiPt:alert(1)")).split("<code>")[0]


def test_theme_strings_and_tags_are_safe() -> None:
    assert escape.yaml_str('<script>"x"</script>') == '"&lt;script&gt;&quot;x&quot;&lt;/script&gt;"'
    assert escape.tag("<b onclick=x>hang</b>") == "b onclick-x-hang-b"
    assert escape.tag("版本回退") == "版本回退"


def test_queries_in_plain_words() -> None:
    log = m.LogQuery(
        name="t", pattern=m.Regex(pattern="Wait timeout"), sources=["nccl"], scope=m.Scope.ONE
    )
    assert describe.query(log) == (
        "A line matching `Wait timeout` in the NCCL logs of exactly one rank"
    )
    pkg = m.PackageQuery(name="p", package="accelerate", specifier=">=1.0")
    assert describe.query(pkg) == "`accelerate` installed at a version matching `>=1.0`"
    env = m.EnvQuery(name="e", variable="NCCL_P2P_DISABLE", test="equals", value="1")
    assert describe.query(env) == "The environment variable `NCCL_P2P_DISABLE` is set to `1`"
    hw = m.HardwareQuery(
        name="h", device="gpu", model=m.Regex(pattern="RTX 40", flags="i"), min_devices=2
    )
    assert describe.query(hw) == (
        "A GPU whose model matches `RTX 40` (ignoring case), with at least 2 devices in the machine"
    )
    topo = m.TopologyQuery(name="x", links=["PHB", "SYS"])
    assert describe.query(topo).startswith("Some pair of GPUs is connected through `PHB` or")
    coll = m.CollectivesQuery(name="c", check="last-op-differs")
    assert "last collective" in describe.query(coll)
    counted = m.LogQuery(
        name="n",
        pattern=m.Regex(pattern="x"),
        min_count=3,
        scope=m.Scope.RANK,
        rank=0,
        files=["*.log"],
    )
    assert describe.query(counted) == (
        "At least 3 lines matching `x` in the logs (files matching `*.log`) of rank 0"
    )


def test_conditions_in_plain_words() -> None:
    expr = m.And(
        operands=[m.Ref(name="a"), m.Or(operands=[m.Ref(name="b"), m.Not(operand=m.Ref(name="c"))])]
    )
    assert describe.expr(expr) == "`a` and (`b` or not `c`)"
    clause = m.Clause(role=m.Role.SUPPORTING, expr=m.Ref(name="a"), weight=2)
    assert describe.clause(clause) == "**Makes it more likely** (weight 2): `a`"
