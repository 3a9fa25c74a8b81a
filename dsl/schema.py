"""Which attributes and blocks may appear where, and what kind of value each takes.

The grammar only knows "name value" and "name [label] { ... }"; this table gives those
names meaning. It drives lowering (`dsl.lower`), "did you mean" suggestions, the
formatter's canonical order and the language reference page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dsl.fields import CODE, INT, STRING_OR_DATE, STRINGS, TEXT, WORD, WORDS, BlockSpec, Field
from dsl.fields import DATE as DATE
from dsl.fields import NUMBER as NUMBER
from dsl.fields import REGEX as REGEX
from dsl.fields import SCOPES as SCOPES
from dsl.kinds import KINDS

SEVERITIES = ("critical", "high", "medium", "low")

CASE_FIELDS = (
    Field("title", TEXT, "Short name of the failure, as a person would search for it.", True),
    Field("summary", TEXT, "One or two sentences: what you see and why.", True),
    Field("severity", WORD, "How bad it is.", choices=SEVERITIES),
    Field("tags", WORDS, "Free-form tags (kebab-case)."),
    Field("components", WORDS, "Software involved: accelerate, nccl, hccl, torch, deepspeed…"),
    Field("platforms", WORDS, "cuda, ascend, rocm…"),
    Field("hardware", STRINGS, 'Hardware models where it was seen: "RTX 4090".'),
    Field("affected", STRINGS, 'Affected versions as requirements: "accelerate>=1.0".'),
    Field("fixed", STRINGS, 'Versions known good: "accelerate==0.28.0".'),
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
        fields=(),  # per kind, see dsl/kinds/
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
        fields=(
            Field("label.zh", TEXT, "The tab label in Chinese (the Chinese tab shows it)."),
            Field("run", CODE, "The command for this alternative."),
        ),
    ),
    "fixture": BlockSpec(
        "fixture",
        "A fixture folder under fixtures/ and what it must yield.",
        label=TEXT,
        label_doc='the folder, relative to fixtures/: "positive/two-ranks"',
        fields=(
            Field("expect", WORD, "The outcome.", choices=("match", "possible", "no-match")),
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

# Fields of each evidence kind, from its module (dsl/kinds/).
QUERY_FIELDS: dict[str, tuple[Field, ...]] = {name: k.fields for name, k in KINDS.items()}
REQUIRED_QUERY_FIELDS: dict[str, tuple[str, ...]] = {name: k.required for name, k in KINDS.items()}


@dataclass
class Schema:
    """Everything a reference page or an editor needs to know about the language."""

    blocks: dict[str, BlockSpec] = field(default_factory=lambda: dict(BLOCKS))
    queries: dict[str, tuple[Field, ...]] = field(
        default_factory=lambda: {name: k.fields for name, k in KINDS.items()}
    )
