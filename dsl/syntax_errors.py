"""Known bad snippets -> messages in a case author's words.

Like lark's own GRAMMAR_ERRORS: each label has example snippets that fail the same way;
`UnexpectedInput.match_examples` finds the label whose examples fail in the same parser
state. `tests/dsl/test_syntax_errors.py` walks the whole table.
"""

from __future__ import annotations

from lark.exceptions import UnexpectedInput

_HEAD = 'case demo-case {\n  title "t"\n'

SYNTAX_ERRORS: dict[str, list[str]] = {
    "a block is not closed: a `}` is missing": [
        _HEAD,
        _HEAD + '  step "x" {\n    why "y"\n',
        _HEAD + "  evidence e: log {\n    pattern /x/\n",
        _HEAD + "  match {\n    require e\n",
    ],
    "a `}` closes nothing: remove it or open a block before it": [
        _HEAD + "}\n}\n",
    ],
    "a file holds one case, starting with `case <id> {`": [
        'title "t"\n',
        "evidence e: log { }\n",
        _HEAD + "}\ncase other {\n}\n",
    ],
    "the case id is missing after `case`": [
        "case {\n}\n",
    ],
    "an evidence query needs a name and a kind: `evidence NAME: KIND { ... }`": [
        _HEAD + "  evidence {\n",
        _HEAD + "  evidence e {\n",
        _HEAD + "  evidence e: {\n",
        _HEAD + '  evidence "e": log {\n',
    ],
    "an attribute needs a value: `name value`": [
        _HEAD + "  severity }\n",
        _HEAD + "  step \"x\" {\n    why }\n",
    ],
    "a condition names evidence queries, joined by `and`, `or`, `not`, `at_least N of (...)`": [
        _HEAD + "  match {\n    require }\n",
        _HEAD + "  match {\n    require a or }\n",
        _HEAD + "  match {\n    require a and }\n",
        _HEAD + "  match {\n    require not }\n",
        _HEAD + '  match {\n    require "a" }\n',
    ],
    "inside `match { }` each line starts with `require`, `support` or `rule_out`": [
        _HEAD + "  match {\n    a\n",
        _HEAD + "  match {\n    needs a\n",
    ],
    "a list is `[a, b, c]`: a `,` or `]` is missing": [
        _HEAD + "  tags [a b]\n",
        _HEAD + "  tags [a,\n",
    ],
    "`weight` takes a number, e.g. `weight 2`": [
        _HEAD + "  match {\n    support a weight x\n",
    ],
}


def friendly_message(err: UnexpectedInput, text: str) -> str | None:
    """The label of the table entry that fails like `text` did, if any."""
    from dsl.parser import _lark

    try:
        label = err.match_examples(
            _lark().parse, SYNTAX_ERRORS, use_accepts=True
        )
    except Exception:  # match_examples re-parses examples; never let that escape
        return None
    return label if isinstance(label, str) else None
