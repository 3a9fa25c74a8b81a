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
HCCL_WATCHDOG = (
    "[Rank {rank:int}] Watchdog caught collective operation timeout: WorkHCCL({work}) ran for "
    "{ms:int} milliseconds before timing out."
)
DUPLICATE = "Duplicate GPU detected : rank {a:int} and rank {b:int} both on CUDA device {bus:word}"
NCCL_ERROR = "NCCL error in: {file}:{line:int}, unhandled system error"
START = (
    "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE)"
)


@pytest.mark.parametrize(
    ("template", "line", "found"),
    [
        # a post cut at the margin: what was printed before the cut names the message
        (WATCHDOG, START + " ran for 1800437 millisecond", True),
        (WATCHDOG, START + " ran for 1800437 milliseconds before timing out.", True),
        (WATCHDOG, START + " ran for 1800437 mill", True),
        (WATCHDOG, START + " ran for 1800437 mil", False),
        # two emitters' messages that start alike: a cut before the last field names neither
        (HCCL_WATCHDOG, "[Rank 0] Watchdog caught collective operation timeout:", False),
        (HCCL_WATCHDOG, "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(", False),
        (
            DUPLICATE,
            "NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device",
            True,
        ),
        # not cut: other text follows where the message should go on
        (WATCHDOG, START + " ran for 1800437 millis and more", False),
        (DUPLICATE, "Duplicate GPU detected : rank 1 and rank 0 both on another device", False),
        # cut too soon after the first field to tell it from a message that starts alike
        (NCCL_ERROR, "NCCL error in: ProcessGroupNCCL.cpp:12,", False),
        (NCCL_ERROR, "NCCL error in: ProcessGroupNCCL.cpp:12, unhandled s", True),
        (NCCL_ERROR, "NCCL error in: ProcessGroupNCCL.cpp:12, unhandled", False),
        # a text field could reach any line end: the word after it must be read whole
        ("Cuda failure '{error}' while connecting", "Cuda failure 'anything at all", False),
    ],
)
def test_a_line_cut_at_its_end_is_the_message(template: str, line: str, found: bool) -> None:
    match = re.search(parse_template(template).regex, line, re.MULTILINE)
    assert (match is not None) is found


def test_a_cut_line_keeps_the_fields_it_shows() -> None:
    match = re.search(parse_template(WATCHDOG).regex, START + " ran for 1800437 millisecond")
    assert match and match.group("seq") == "2" and match.group("ms") == "1800437"


def test_a_cut_cannot_turn_one_message_into_another() -> None:
    """`…:12, unhandled system error` and `…:12, invalid usage` start alike: a line cut
    inside what follows is the message whose text it starts, never the other."""
    system = parse_template(NCCL_ERROR).regex
    usage = parse_template("NCCL error in: {file}:{line:int}, invalid usage").regex
    cut = "NCCL error in: ProcessGroupNCCL.cpp:12, unhandled sys"
    assert re.search(system, cut, re.MULTILINE) and not re.search(usage, cut, re.MULTILINE)


def test_a_message_without_fields_is_cut_only_after_enough_of_it() -> None:
    regex = parse_template("Some NCCL operations have failed or timed out. Due to the").regex
    assert re.search(regex, "[E x.cpp:1] Some NCCL operations have failed or tim", re.MULTILINE)
    assert not re.search(regex, "[E x.cpp:1] Some NCCL operations", re.MULTILINE)


def test_the_full_stop_that_ends_a_message_may_be_missing() -> None:
    regex = parse_template(
        "The client socket has timed out after {timeout} while trying to connect to "
        "({host}, {port:int})."
    ).regex
    line = "TimeoutError: The client socket has timed out after 1800s while trying to connect to "
    match = re.search(regex, line + "(127.0.0.1, 43971)", re.MULTILINE)
    assert match and match.group("host") == "127.0.0.1"
    assert re.search(regex, line + "(gpu-c01, 29500).", re.MULTILINE)


def test_backticks_in_a_message_may_be_lost_in_a_paste() -> None:
    """Markdown turns `x` into code formatting: a paste outside a code block has no backticks."""
    t = parse_template("`FlatParameter` requires uniform dtype but got {a:word} and {b:word}")
    for line in (
        "ValueError: `FlatParameter` requires uniform dtype but got torch.float16 and torch.float32",
        "ValueError: FlatParameter requires uniform dtype but got torch.float16 and torch.float32",
    ):
        assert re.search(t.regex, line), line
    assert not re.search(
        t.regex, "ValueError: Flat Parameter requires uniform dtype but got a and b"
    )


def test_a_paste_that_starts_after_the_leading_field_is_the_message() -> None:
    """A selection often begins mid-line: the command before `exits with …` was not copied."""
    pattern = re.compile(parse_template("{cmd} exits with return code = {code:int}").regex)
    late = pattern.search("exits with return code = -9.")
    assert late is not None and late.group("code") == "-9" and late.group("cmd") is None
    whole = pattern.search("[launch.py:319] Killing subprocess 12 exits with return code = -9")
    assert whole is not None and whole.group("cmd").endswith("subprocess 12")


def test_a_short_tail_or_a_condition_on_the_leading_field_needs_the_field() -> None:
    short = re.compile(parse_template("{name} is set to value {value:int}").regex)
    # too little fixed text to name the message alone
    assert short.search("is set to value 4") is None
    regex = parse_template("{cmd} exits with return code = {code:int}").regex
    only = re.compile(with_values(regex, {"cmd": ["deepspeed"]}))
    assert only.search("exits with return code = -9") is None
    assert only.search("deepspeed exits with return code = -9") is not None
