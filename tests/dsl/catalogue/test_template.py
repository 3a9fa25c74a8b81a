"""Templates become the scanner's regex; conditions replace a field by literal values."""

from __future__ import annotations

import re

import pytest

from dsl.catalogue.template import TemplateError, parse_template, with_values

IB = (
    "NET/IB : Got completion from peer {peer} with error {status:int}, opcode {opcode:int}, "
    "len {len:int}, vendor err {vendor_err:int}"
)
LINE = (
    "host:1:2 [3] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<4567> with error 12, "
    "opcode 0, len 0, vendor err 129"
)


def test_fields_are_named_groups_with_their_types() -> None:
    t = parse_template(IB)
    assert t.fields == {
        "peer": "text",
        "status": "int",
        "opcode": "int",
        "len": "int",
        "vendor_err": "int",
    }
    found = re.search(t.regex, LINE)
    assert found is not None
    assert found.group("peer") == "10.0.0.2<4567>"
    assert found.group("vendor_err") == "129"


def test_a_condition_keeps_only_lines_with_that_value() -> None:
    regex = parse_template(IB).regex
    assert re.search(with_values(regex, {"status": ["12"]}), LINE)
    assert re.search(with_values(regex, {"status": ["4", "5"]}), LINE) is None
    assert re.search(with_values(regex, {"status": ["5", "12"]}), LINE)


def test_runs_of_spaces_match_any_blanks_and_text_is_literal() -> None:
    t = parse_template("ncclSystemError: System call (e.g. socket, malloc) failed {_}")
    assert re.search(t.regex, "ncclSystemError:  System call (e.g. socket, malloc)  failed x")
    assert re.search(t.regex, "ncclSystemError: System call (eXg. socket, malloc) failed") is None


def test_literal_braces_and_typed_fields() -> None:
    t = parse_template("WorkNCCL(SeqNum={seq:int}) ran for {ms:int} milliseconds {{x}}")
    assert re.search(t.regex, "WorkNCCL(SeqNum=7) ran for 600030 milliseconds {x}")
    t = parse_template("Xid (PCI:{pci:word}): {xid:int}, pid={pid:word}")
    assert (
        re.search(t.regex, "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>'").group("xid") == "79"
    )


@pytest.mark.parametrize(
    ("template", "reason"),
    [
        ("Got {a", "lone `{`"),
        ("Got completion {a:float}", "unknown field type"),
        ("{a} and {a} again twice", "appears twice"),
        ("{a} {b:int}", "six characters"),
        ("   ", "needs some text"),
    ],
)
def test_bad_templates_say_what_to_write(template: str, reason: str) -> None:
    with pytest.raises(TemplateError, match=re.escape(reason)):
        parse_template(template)


def test_a_condition_on_a_missing_field_is_an_error() -> None:
    with pytest.raises(TemplateError, match="no field `signal`"):
        with_values(parse_template(IB).regex, {"signal": ["9"]})


WATCHDOG = (
    "[Rank {rank:int}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq:int}, "
    "OpType={op:word}) ran for {ms:int} milliseconds before timing out."
)


@pytest.mark.parametrize(
    ("line", "found"),
    [
        # a post cut at the margin: every field read, the fixed tail cut where the line ends
        (
            "[Rank 1] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=2, OpType=ALLREDUCE) ran for 1800437 millisecond",
            True,
        ),
        (
            "[Rank 1] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=2, OpType=ALLREDUCE) ran for 1800437 milliseconds before timing out.",
            True,
        ),
        # cut too early to know the tail (fewer than four of its characters)
        (
            "[Rank 1] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=2, OpType=ALLREDUCE) ran for 1800437 mil",
            False,
        ),
        # not cut: other text follows where the tail should be
        (
            "[Rank 1] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=2, OpType=ALLREDUCE) ran for 1800437 millis and more",
            False,
        ),
    ],
)
def test_a_line_cut_after_its_last_field_is_the_message(line: str, found: bool) -> None:
    match = re.search(parse_template(WATCHDOG).regex, line, re.MULTILINE)
    assert (match is not None) is found
    if match:
        assert match.group("seq") == "2" and match.group("ms") == "1800437"


def test_a_cut_cannot_turn_one_message_into_another() -> None:
    """`…:12, unhandled system error` and `…:12, invalid usage` start alike: a line cut
    inside the tail is the message whose tail it starts, never the other."""
    system = parse_template("NCCL error in: {file}:{line:int}, unhandled system error").regex
    usage = parse_template("NCCL error in: {file}:{line:int}, invalid usage").regex
    cut = "NCCL error in: ProcessGroupNCCL.cpp:12, unhandled sys"
    assert re.search(system, cut, re.MULTILINE) and not re.search(usage, cut, re.MULTILINE)
