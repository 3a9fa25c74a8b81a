"""An option's optional `label.zh`: read by the language, kept by `kb fmt`, shown as the
Chinese tab's label; an option without one is never an English tab label in a Chinese tab."""

from __future__ import annotations

from pathlib import Path

from kbsite_cases import SAMPLE, SAMPLE_FIXTURES, SAMPLE_ID, write_case

from dsl import model as m
from dsl.api import load_cases
from dsl.diagnostics import Diagnostic, has_errors
from dsl.formatter import format_text
from kb.site import casepage


def _step(root: Path, text: str = SAMPLE) -> tuple[m.Step, list[Diagnostic]]:
    write_case(root, SAMPLE_ID, text, SAMPLE_FIXTURES)
    result = load_cases([root], with_env=False)
    errors = [d for d in result.diagnostics if has_errors([d])]
    if not result.cases:
        return m.Step(title=m.Text(en="none")), errors
    (case,) = result.cases
    return case.remedies[0].steps[0], errors


def test_the_language_reads_label_zh_beside_its_option(tmp_path: Path) -> None:
    step, errors = _step(tmp_path)
    assert errors == []
    assert [label for label, _ in step.alternatives] == ["pip", "conda"]
    assert step.alternative_labels_zh == ["用 pip 安装", None]


def test_a_misspelt_label_zh_is_an_error(tmp_path: Path) -> None:
    _, errors = _step(tmp_path, SAMPLE.replace("label.zh ", "label.zhx ", 1))
    assert errors, "an unknown field inside an option must be reported"


def test_fmt_keeps_label_zh_and_is_stable() -> None:
    once = format_text(SAMPLE.lstrip())
    assert 'label.zh "用 pip 安装"' in once
    assert format_text(once) == once


def test_the_chinese_tab_labels_options_in_chinese(tmp_path: Path) -> None:
    step, _ = _step(tmp_path)
    en = casepage.alternatives(step, "en")
    zh = casepage.alternatives(step, "zh")
    assert [label for label, _ in en] == ["pip", "conda"]
    assert [label for label, _ in zh] == ["用 pip 安装", "做法 2"]
    # the option without a Chinese label keeps its English label, marked as the original
    assert casepage.FALLBACK in zh[1][1] and "conda" in zh[1][1]
    assert casepage.FALLBACK not in zh[0][1]
    page = casepage.remedy(m.Remedy(title=m.Text(en="t", zh="修"), steps=[step]), "zh")
    assert '=== "pip"' not in page and '=== "conda"' not in page
    assert '=== "用 pip 安装"' in page
