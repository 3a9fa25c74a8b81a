"""Generates the field tables of site/reference/language.md from dsl/schema.py.

Write and check modes, like ruff's generators: CI runs `python -m dsl.reference --check`
so the page cannot drift from the schema. Only the text between the markers is generated;
the prose and examples around it are written by hand.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dsl import schema as sc
from dsl.catalogue.lower import DECLARATIONS, SAMPLE, WORDING

PAGE = Path(__file__).resolve().parent.parent / "site" / "reference" / "language.md"
BEGIN = "<!-- BEGIN GENERATED FROM dsl/schema.py: python -m dsl.reference --write -->"
END = "<!-- END GENERATED -->"

KIND_WORDS = {
    sc.TEXT: '`"string"` or `"""text block"""`',
    sc.WORD: "word",
    sc.WORDS: "list of words `[a, b]`",
    sc.STRINGS: 'list of strings `["a", "b"]`',
    sc.REGEX: "`/regex/`",
    sc.INT: "whole number",
    sc.NUMBER: "number",
    sc.DATE: "date `YYYY-MM-DD`",
    sc.CODE: "` ```code block``` `",
    sc.STRING_OR_DATE: "date `YYYY-MM-DD` (or a string)",
}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _field_rows(fields: tuple[sc.Field, ...], required: tuple[str, ...] = ()) -> list[str]:
    rows = ["| field | value | meaning |", "| --- | --- | --- |"]
    for f in fields:
        notes = []
        if f.name in required:
            notes.append("**required**")
        if f.choices:
            notes.append("one of: " + ", ".join(f"`{c}`" for c in f.choices))
        if f.repeatable:
            notes.append("may be repeated")
        if f.translatable:
            notes.append(f"Chinese twin: `{f.name}.zh`")
        extra = f" ({'; '.join(notes)})" if notes else ""
        rows.append(f"| `{f.name}` | {KIND_WORDS[f.kind]} | {_cell(f.doc)}{extra} |")
    return rows


def generate() -> str:
    """The generated section, markers included."""
    out = [BEGIN, "", "### Blocks and their fields", ""]
    for spec in sc.BLOCKS.values():
        out.append(f"#### `{spec.name}`")
        out.append("")
        out.append(spec.doc)
        out.append("")
        if spec.label:
            zh = " (Chinese twin: `title.zh`)" if spec.translatable_label else ""
            out.append(f"Label: {KIND_WORDS[spec.label]}, {spec.label_doc}{zh}.")
            out.append("")
        if spec.name == "evidence":
            out.append("Fields depend on the kind; see [evidence kinds](#evidence-kinds).")
            out.append("")
        elif spec.name == "lines":
            out.append(
                'Each line is `QUERY "file:line"`: an evidence query name and where '
                "its line is in the fixture."
            )
            out.append("")
        if spec.fields:
            out.extend(_field_rows(spec.fields))
            out.append("")
        if spec.blocks:
            out.append("Blocks inside: " + ", ".join(f"`{b}`" for b in spec.blocks) + ".")
            out.append("")
        out.append("Repeatable: " + ("yes" if spec.repeatable else "no, at most once") + ".")
        out.append("")
    out += ["### Evidence kinds", "", "Every kind also takes these fields:", ""]
    out.extend(_field_rows(sc.COMMON_QUERY_FIELDS))
    out.append("")
    for kind, fields in sc.QUERY_FIELDS.items():
        out.append(f"#### `{kind}`")
        out.append("")
        out.extend(_field_rows(fields, sc.REQUIRED_QUERY_FIELDS.get(kind, ())))
        out.append("")
    out += ["### Catalogue declarations", ""]
    out.append(
        "A catalogue file (`catalogue/**.kb`) holds any number of these; see [the catalogue](#the-catalogue)."
    )
    out.append("")
    for spec in (*DECLARATIONS.values(), WORDING, SAMPLE):
        out.append(f"#### `{spec.name}`")
        out.append("")
        out.append(spec.doc)
        out.append("")
        if spec.label:
            out.append(f"Label: {KIND_WORDS[spec.label]}, {spec.label_doc}.")
            out.append("")
        if spec.fields:
            out.extend(_field_rows(spec.fields))
            out.append("")
        if spec.blocks:
            out.append("Blocks inside: " + ", ".join(f"`{b}`" for b in spec.blocks) + ".")
            out.append("")
    out.append(END)
    return "\n".join(out)


def render_page(page: str) -> str:
    """`page` with its generated section replaced by the current one."""
    start, end = page.find(BEGIN), page.find(END)
    if start < 0 or end < start:
        raise ValueError(f"{PAGE}: generated-section markers are missing")
    return page[:start] + generate() + page[end + len(END) :]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dsl.reference", description=__doc__)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="update the page")
    mode.add_argument("--check", action="store_true", help="exit 1 if the page is stale")
    args = parser.parse_args(argv)
    page = PAGE.read_text(encoding="utf-8")
    new = render_page(page)
    if args.check:
        if new != page:
            print(f"{PAGE} is stale: run `python -m dsl.reference --write`", file=sys.stderr)
            return 1
        return 0
    if new != page:
        PAGE.write_text(new, encoding="utf-8")
        print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
