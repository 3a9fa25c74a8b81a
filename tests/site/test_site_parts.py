"""The pieces the pages are made of: messages from patterns, reference titles, the search
normaliser, pasted-line scoring, phases and error codes, and the prose escaping fixes."""

from __future__ import annotations

import markdown
import pytest

from dsl import model as m
from dsl.api import load_cases
from kb.site import codes, escape, messages, normalise, paste, phases, plain, references


def _html(source: str) -> str:
    return markdown.Markdown(extensions=["pymdownx.escapeall"]).convert(source)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (
            r"NET\/IBP?(\/GIN)? ?: ?Got completion (from peer (\S+ )?)?with (error ?\d+|status=\d+)",
            ["NET/IB : Got completion with error ‹number›"],
        ),
        (
            r"Watchdog caught collective operation timeout|failure detected by watchdog",
            ["Watchdog caught collective operation timeout", "failure detected by watchdog"],
        ),
        (r"CANN.*mismatch", ["CANN…mismatch"]),
        (
            r"(?i)module 'torch_npu' has no attribute '\w+'",
            ["module 'torch_npu' has no attribute '‹name›'"],
        ),
        (r"at 0x[0-9a-f]+", ["at 0x‹hex›"]),
    ],
)
def test_a_pattern_reads_as_the_messages_it_finds(pattern: str, expected: list[str]) -> None:
    assert [messages.plain(x) for x in messages.messages(pattern)] == expected


def test_an_unparsable_pattern_falls_back_to_its_longest_literal() -> None:
    assert [messages.plain(x) for x in messages.messages(r"(unclosed group text")] == [
        "unclosed group text"
    ]


def test_a_message_in_markdown_escapes_its_text_and_marks_what_varies() -> None:
    html = _html(plain.pattern_md(m.Regex(pattern=r"<script>x</script> rank \d+")))
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert '<span class="kb-var">number</span>' in html
    assert "\\d" not in html


def test_inline_code_across_a_line_break_stays_code() -> None:
    html = _html(escape.text("dies with `NCCL WARN NET/IB : Got\n    completion` on one rank"))
    assert "<code>NCCL WARN NET/IB : Got completion</code>" in html
    assert "`" not in html


@pytest.mark.parametrize(
    ("url", "title"),
    [
        ("https://github.com/NVIDIA/nccl/issues/1405", "NVIDIA/nccl issue #1405"),
        ("https://github.com/pytorch/pytorch/pull/99", "pytorch/pytorch pull request #99"),
        (
            "https://discuss.pytorch.org/t/ddp-hangs-at-init/12345",
            "PyTorch forums: ddp hangs at init",
        ),
        (
            "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-timeout",
            "docs.nvidia.com: env — nccl ib timeout",
        ),
    ],
)
def test_reference_titles_come_from_the_address(url: str, title: str) -> None:
    assert references.title(url) == title


def test_free_text_links_only_its_address() -> None:
    value = "https://blog.csdn.net/ (HuggingFace Accelerate多卡训练卡在prepare()？, seed 002)"
    assert references.urls(value) == ["https://blog.csdn.net/"]
    html = _html(references.linked_text(value))
    assert 'href="https://blog.csdn.net/"' in html and "%20" not in html


def test_the_normaliser_removes_what_varies_between_runs() -> None:
    line = (
        "[rank3]:[E1118 04:22:51.617203991 ProcessGroupNCCL.cpp:1595] h100-a11:31413:31688 "
        "2024-08-12T10:11:12Z NET/IB : Got completion from peer 10.3.1.17<52347> with "
        "error 12, vendor err 129 at 0x7f3a2c node-12 host-3"
    )
    out = normalise.normalise(line)
    for gone in (
        "31413",
        "10.3.1.17",
        "52347",
        "2024",
        "0x7f3a2c",
        "node-12",
        "host-3",
        "[rank3]",
        "04:22:51",
    ):
        assert gone not in out, gone
    for kept in (
        "NET/IB",
        "Got completion from peer",
        "error 12",
        "vendor err 129",
        "ProcessGroupNCCL.cpp",
    ):
        assert kept in out, kept


def test_the_browser_normaliser_carries_the_same_rules() -> None:
    script = normalise.javascript()
    for pattern, _replacement in normalise.RULES:
        assert pattern.replace("\\", "\\\\") in script
    assert "Worker.prototype.postMessage" in script


@pytest.fixture(scope="module")
def cases() -> list[m.Case]:
    result = load_cases(with_env=False)
    assert result.ok
    return list(result.cases)


def test_a_pasted_line_scores_its_case_highest(cases: list[m.Case]) -> None:
    line = (
        "h100-a11:31413:31688 [3] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion "
        "from peer 10.3.1.17<52347> with error 12, opcode 0, len 0, vendor err 129 (Recv)"
    )
    assert paste.score(line, cases)[0][1] == "nccl-ib-completion-error"
    assert paste.score("hello world again", cases) == []


def test_a_pattern_only_under_not_in_a_rule_out_counts_for_nothing() -> None:
    expr = m.And(operands=[m.Ref(name="a"), m.Not(operand=m.Ref(name="b"))])
    assert paste._positive_refs(expr) == {"a"}


def test_pasted_line_patterns_are_spelled_for_javascript() -> None:
    assert paste.javascript_source(r"rank (?P<rank>\d+)") == r"rank (?<rank>\d+)"


def test_every_case_has_one_phase_and_the_rule_is_deterministic(cases: list[m.Case]) -> None:
    groups = phases.by_phase(cases)
    assert [p.key for p, _ in groups] == [p.key for p in phases.PHASES]
    assert sum(len(cs) for _, cs in groups) == len(cases)
    reversed_groups = phases.by_phase(list(reversed(cases)))
    assert [{c.id for c in cs} for _, cs in reversed_groups] == [
        {c.id for c in cs} for _, cs in groups
    ]
    assert phases.phase_of(next(c for c in cases if c.id == "master-port-in-use")).key == "launch"
    assert (
        phases.phase_of(next(c for c in cases if c.id == "eval-save-collective-deadlock")).key
        == "eval"
    )


def test_error_codes_list_only_cases_that_speak_for_them(cases: list[m.Case]) -> None:
    found = {c.name: c for c in codes.collect(cases)}
    for code in (
        "EI0002",
        "EI0006",
        "ncclRemoteError",
        "IBV_WC_RETRY_EXC_ERR",
        "Watchdog caught collective operation timeout",
    ):
        assert code in found, code
    assert "nccl-ib-completion-error" in {c.id for c in found["IBV_WC_RETRY_EXC_ERR"].cases}
    # nccl-p2p-consumer-gpu-hang only rules out NCCL_P2P_DISABLE; it explains no EI code
    assert "nccl-p2p-consumer-gpu-hang" not in {c.id for c in found["EI0002"].cases}
    assert found["EI0002"].slug == "ei0002"


@pytest.mark.parametrize(
    ("pattern", "safe"),
    [
        (r"(a+)+$", False),
        (r"(x|yz)*q", False),
        (r"NET/IB ?: ?Got completion (from peer (\S+ )?)?with (error ?\d+)", True),
        (r"Watchdog caught .* timeout", True),
    ],
)
def test_patterns_that_could_backtrack_for_ever_stay_out_of_the_browser(
    pattern: str, safe: bool
) -> None:
    assert paste.browser_safe(pattern) is safe
