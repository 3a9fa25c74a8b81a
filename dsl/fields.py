"""What a field of the case language is: a name, the kind of value it takes, its doc.

Its own module because both the block table (`dsl.schema`) and every query kind
(`dsl.kinds.*`) declare fields, and the kinds must not import the table built from them.
"""

from __future__ import annotations

from dataclasses import dataclass

# value kinds
TEXT = "text"  # "string" or """text block"""
WORD = "word"  # a bare word (enum value, name)
WORDS = "words"  # a list of words or strings
STRINGS = "strings"  # a list of strings
REGEX = "regex"
INT = "int"
NUMBER = "number"
DATE = "date"
CODE = "code"  # ```code block```
STRING_OR_DATE = "string-or-date"

SCOPES = ("any", "all", "one", "rank", "all-but-one")


@dataclass(frozen=True)
class Field:
    name: str
    kind: str
    doc: str
    translatable: bool = False  # may have a `.zh` twin
    repeatable: bool = False
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class BlockSpec:
    name: str
    doc: str
    label: str | None = None  # value kind of the label, None = no label
    label_doc: str = ""
    fields: tuple[Field, ...] = ()
    blocks: tuple[str, ...] = ()  # names of nested block specs allowed
    repeatable: bool = True
    translatable_label: bool = False

    def field(self, name: str) -> Field | None:
        return next((f for f in self.fields if f.name == name), None)
