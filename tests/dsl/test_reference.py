"""The language reference stays in step with the grammar and the schema."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from dsl import schema as sc
from dsl.lower import lower
from dsl.parser import parse_text
from dsl.reference import PAGE, generate, main, render_page
from dsl.validate import validate_cases

TEXT = PAGE.read_text(encoding="utf-8")
GRAMMAR = resources.files("dsl").joinpath("grammar.lark").read_text(encoding="utf-8")
EXAMPLES = [m.group(2) for m in re.finditer(r"^(`{3,})kbcase\n(.*?)^\1[ \t]*$", TEXT, re.M | re.S)]
ALLOWED_IN_EXAMPLES = {
    "unused-evidence",
    "missing-fixture",
    "undefined-evidence",
    "unknown-case",
    "id-not-folder",
}


def _mentioned(word: str) -> bool:
    return (
        f"`{word}`" in TEXT or re.search(rf"(?<![\w.]){re.escape(word)}(?![\w])", TEXT) is not None
    )


def test_every_grammar_alias_and_keyword_is_documented() -> None:
    aliases = set(re.findall(r"->\s*(\w+)", GRAMMAR))
    keywords = set(re.findall(r'"([a-z_]+)"', GRAMMAR))
    assert aliases and keywords
    missing = sorted(w for w in aliases | keywords if f"`{w}`" not in TEXT)
    assert not missing


def test_every_schema_name_is_documented() -> None:
    names: set[str] = set(sc.BLOCKS) | set(sc.QUERY_FIELDS)
    for spec in sc.BLOCKS.values():
        names |= {f.name for f in spec.fields}
        names |= {c for f in spec.fields for c in f.choices}
    for fields in [sc.COMMON_QUERY_FIELDS, *sc.QUERY_FIELDS.values()]:
        names |= {f.name for f in fields}
        names |= {c for f in fields for c in f.choices}
    missing = sorted(n for n in names if f"`{n}`" not in TEXT)
    assert not missing


def test_generated_section_is_current() -> None:
    assert render_page(TEXT) == TEXT
    assert generate() in TEXT
    assert main(["--check"]) == 0


def test_check_mode_fails_on_a_stale_page(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    stale = tmp_path / "language.md"
    stale.write_text(TEXT.replace("| `severity` |", "| `severity_old` |"), encoding="utf-8")
    monkeypatch.setattr("dsl.reference.PAGE", stale)
    assert main(["--check"]) == 1
    assert main(["--write"]) == 0
    assert stale.read_text(encoding="utf-8") == TEXT


def test_there_are_examples() -> None:
    assert len(EXAMPLES) >= 10


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"example-{i}" for i in range(len(EXAMPLES))])
def test_every_example_parses(example: str) -> None:
    full = re.match(r"\s*(#[^\n]*\n\s*)*case\s", example) is not None
    text = example if full else "case x {\n" + example + "\n}\n"
    tree = parse_text(text, "example.kb")
    if not full:
        return
    case, problems = lower(tree)
    assert case is not None
    problems += validate_cases([case])
    errors = [
        d for d in problems if d.severity.value == "error" and d.code not in ALLOWED_IN_EXAMPLES
    ]
    assert not errors, errors
