"""Issue 29: a case's `{{ }}` reached the Loki ruler's annotations verbatim, where the ruler
runs them as a Go template when it loads the rule (template injection)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from kb.cli.main import main
from kb.export.loki_ruler import template_literal

REPO = Path(__file__).resolve().parents[2]
CASE = "rank-oom-cascades-to-watchdog-timeout"
HOSTILE = '{{ .Labels }} {{ range $x := "y" }}}}{{{{'
_ESCAPED = re.compile(r'\{\{ "(\{\{|\}\})" \}\}')


def _as_go_shows(annotation: str) -> str:
    """What Go's text/template prints for an annotation; fails on any other action."""
    plain = _ESCAPED.sub(lambda m: m.group(1).replace("{", "\0").replace("}", "\1"), annotation)
    assert "{{" not in plain and "}}" not in plain, f"a live template action: {annotation!r}"
    return plain.replace("\0", "{").replace("\1", "}")


@pytest.mark.parametrize("text", [HOSTILE, "plain", "{", "}", "{ {x} }", "{{{", "}}}", ""])
def test_template_literal_shows_the_text_verbatim(text: str) -> None:
    assert _as_go_shows(template_literal(text)) == text


def test_a_case_title_with_template_delimiters_is_exported_inert(tmp_path: Path) -> None:
    pytest.importorskip("sigma.backends.loki", reason="extra `fleet`")
    from ruamel.yaml import YAML

    cases = tmp_path / "cases"
    shutil.copytree(REPO / "cases" / CASE, cases / CASE)
    kb_file = cases / CASE / "case.kb"
    text = kb_file.read_text(encoding="utf-8")
    title = re.search(r'^  title "([^"]*)"', text, re.M)
    assert title is not None
    hostile = HOSTILE.replace('"', "'")
    kb_file.write_text(text.replace(title.group(0), f'  title "{hostile}"', 1), encoding="utf-8")
    out = tmp_path / "out"
    args = ["export", "loki", "--format", "ruler", "--no-bundled", "--cases", str(cases)]
    assert main([*args, "--case", CASE, "-o", str(out)]) == 0
    groups = YAML(typ="safe").load((out / f"{CASE}.ruler.yaml").read_text())["groups"]
    annotations = [r["annotations"] for r in groups[0]["rules"]]
    summaries = [_as_go_shows(a["summary"]) for a in annotations]
    for a in annotations:
        _as_go_shows(a["description"])
    assert hostile in summaries  # the title is shown as written, and nothing of it runs
