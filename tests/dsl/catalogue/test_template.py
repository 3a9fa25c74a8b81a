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
