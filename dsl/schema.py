"""Which attributes and blocks may appear where, and what kind of value each takes.

The grammar only knows "name value" and "name [label] { ... }"; this table gives those
names meaning. It drives lowering (`dsl.lower`), "did you mean" suggestions, the
formatter's canonical order and the language reference page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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


SEVERITIES = ("critical", "high", "medium", "low")
SCOPES = ("any", "all", "one", "rank", "all-but-one")

CASE_FIELDS = (
    Field("title", TEXT, "Short name of the failure, as a person would search for it.", True),
    Field("summary", TEXT, "One or two sentences: what you see and why.", True),
    Field("severity", WORD, "How bad it is.", choices=SEVERITIES),
    Field("tags", WORDS, "Free-form tags (kebab-case)."),
    Field("components", WORDS, "Software involved: accelerate, nccl, hccl, torch, deepspeed…"),
    Field("platforms", WORDS, "cuda, ascend, rocm…"),
    Field("hardware", STRINGS, "Hardware models where it was seen: \"RTX 4090\"."),
    Field("affected", STRINGS, "Affected versions as requirements: \"accelerate>=1.0\"."),
    Field("fixed", STRINGS, "Versions known good: \"accelerate==0.28.0\"."),
    Field("references", STRINGS, "URLs: articles, issues, docs."),
    Field("specializes", WORDS, "Ids of more general cases this one refines; it wins over them."),
    Field("related", WORDS, "Ids of related cases."),
    Field("cause", TEXT, "Why it happens.", True),
)

BLOCKS: dict[str, BlockSpec] = {
    "case": BlockSpec(
        "case",
        "One incident. Its id is kebab-case, names the failure and equals its folder name.",
        fields=CASE_FIELDS,
        blocks=("provenance", "symptom", "remedy", "fixture"),
        repeatable=False,
    ),
    "provenance": BlockSpec(
        "provenance",
        "Where the knowledge comes from.",
        fields=(
            Field("source", TEXT, "The source article or thread (URL)."),
            Field("date", STRING_OR_DATE, "When it was published or observed (YYYY-MM-DD)."),
            Field("verified_on", TEXT, "What the remedy was verified on.", True),
            Field("authors", STRINGS, "Who wrote the case."),
        ),
        repeatable=False,
    ),
    "symptom": BlockSpec(
        "symptom",
        "What a person sees, in words; `shows` ties it to evidence queries.",
        label=TEXT,
        label_doc="the symptom in English",
        fields=(
            Field("zh", TEXT, "The symptom in Chinese."),
            Field("shows", WORDS, "Names of evidence queries that show this symptom."),
        ),
    ),
    "evidence": BlockSpec(
        "evidence",
        "A named evidence query: `evidence NAME: KIND { ... }`.",
        fields=(),  # per kind, see QUERY_FIELDS
        blocks=("collect",),
    ),
    "collect": BlockSpec(
        "collect",
        "How to collect this evidence when it is missing.",
        fields=(
            Field("note", TEXT, "What to do, in words.", True),
            Field("run", CODE, "A command to run.", repeatable=True),
        ),
        repeatable=False,
    ),
    "remedy": BlockSpec(
        "remedy",
        "A fix: ordered steps.",
        label=TEXT,
        label_doc="the remedy's title",
        translatable_label=True,
        fields=(Field("title.zh", TEXT, "The title in Chinese."),),
        blocks=("step",),
    ),
    "step": BlockSpec(
        "step",
        "One step of a remedy.",
        label=TEXT,
        label_doc="the step's title",
        translatable_label=True,
        fields=(
            Field("title.zh", TEXT, "The title in Chinese."),
            Field("why", TEXT, "Why this works.", True),
            Field("run", CODE, "A command or code block.", repeatable=True),
            Field("verify", TEXT, "How to tell that it worked.", True),
            Field("verify_run", CODE, "A command that shows it worked.", repeatable=True),
        ),
        blocks=("option",),
    ),
    "option": BlockSpec(
        "option",
        "One of several alternative ways to do a step (shown as tabs).",
        label=TEXT,
        label_doc="the tab label",
        fields=(Field("run", CODE, "The command for this alternative."),),
    ),
    "fixture": BlockSpec(
        "fixture",
        "A fixture folder under fixtures/ and what it must yield.",
        label=TEXT,
        label_doc='the folder, relative to fixtures/: "positive/two-ranks"',
        fields=(
            Field("expect", WORD, "The outcome.", choices=("match", "no-match")),
            Field("culprit_rank", INT, "The rank the diagnosis must blame."),
            Field("todo", TEXT, "A known gap: reported, never failing."),
        ),
        blocks=("lines",),
    ),
    "lines": BlockSpec(
        "lines",
        'Evidence lines the verdict must show: `QUERY "file:line"`, one per line.',
        fields=(),  # any query name -> "file:line"
        repeatable=False,
    ),
}

# Fields of each evidence kind; every kind also takes `describe`.
COMMON_QUERY_FIELDS = (
    Field("describe", TEXT, "The query in plain words.", True),
    Field("collect", CODE, "Shorthand for `collect { run ... }`.", repeatable=True),
)

QUERY_FIELDS: dict[str, tuple[Field, ...]] = {
    "log": (
        Field("pattern", REGEX, "A linear-time regex matched against each line. A named "
              "group `(?P<rank>\\d+)` names the rank the line blames (the culprit)."),
        Field("files", STRINGS, 'Globs choosing files: ["**/plog-*.log"]. Default: every file.'),
        Field("sources", WORDS, "Only files of these evidence kinds: [nccl, pytorch]."),
        Field("scope", WORD, "Which ranks must show it.", choices=SCOPES),
        Field("rank", INT, "With `scope rank`: the rank."),
        Field("min_count", INT, "At least this many matching lines (default 1)."),
        Field("max_count", INT, "At most this many matching lines."),
    ),
    "package": (
        Field("requires", TEXT, 'A requirement: "accelerate>=1.0" (PEP 440).'),
    ),
    "env": (
        Field("variable", WORD, "The environment variable."),
        Field("is", WORD, "The test.", choices=("set", "unset")),
        Field("equals", TEXT, "The value it must have."),
        Field("matches", REGEX, "A regex its value must match."),
    ),
    "hardware": (
        Field("device", WORD, "Kind of device.", choices=("gpu", "npu", "any")),
        Field("model", REGEX, "Device model pattern: /RTX 40\\d0/."),
        Field("min_devices", INT, "At least this many devices."),
        Field("max_devices", INT, "At most this many devices."),
    ),
    "topology": (
        Field("links", WORDS, "Link types between GPUs: [PIX, PXB, PHB, NODE, SYS, NV#]."),
        Field("pairs", WORD, "Any pair or all pairs.", choices=("any", "all")),
    ),
    "collectives": (
        Field(
            "check",
            WORD,
            "What to compare across ranks.",
            choices=(
                "last-op-differs",
                "count-differs",
                "count-equal",
                "mismatch-reported",
                "seq-differs",
            ),
        ),
        Field("op", REGEX, "Only ops whose name matches."),
        Field("min_ranks", INT, "At least this many ranks must have logged collectives."),
    ),
    "stack": (
        Field("frame", REGEX, "A frame (function or file) on the stack."),
        Field("scope", WORD, "Which ranks.", choices=SCOPES),
        Field("rank", INT, "With `scope rank`: the rank."),
    ),
    "source": (
        Field(
            "finding",
            WORD,
            "What static reading of the training script must find.",
            choices=("collective-in-main-only-branch", "save-in-main-only-branch", "call"),
        ),
        Field("call", REGEX, "The called function's name."),
    ),
}

REQUIRED_QUERY_FIELDS: dict[str, tuple[str, ...]] = {
    "log": ("pattern",),
    "package": ("requires",),
    "env": ("variable",),
    "hardware": (),
    "topology": ("links",),
    "collectives": ("check",),
    "stack": ("frame",),
    "source": ("finding",),
}


@dataclass
class Schema:
    """Everything a reference page or an editor needs to know about the language."""

    blocks: dict[str, BlockSpec] = field(default_factory=lambda: dict(BLOCKS))
    queries: dict[str, tuple[Field, ...]] = field(default_factory=lambda: dict(QUERY_FIELDS))
