"""`log`: a pattern over the lines of the evidence files, counted per rank."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field as ModelField

from dsl import runtime
from dsl.diagnostics import Diagnostic, did_you_mean
from dsl.fields import INT, REGEX, SCOPES, STRINGS, TEXT, WORD, WORDS, Field
from dsl.kinds.base import (
    Code,
    Lowering,
    Phrase,
    Query,
    QueryKind,
    Scope,
    rank_problems,
    ranks_words,
    regex_phrase,
)
from dsl.values import Regex

if TYPE_CHECKING:  # annotations only: a warm `kb diagnose` needs no syntax tree
    from dsl import syntax as s


class LogQuery(Query):
    kind: Literal["log"] = "log"
    pattern: Regex
    files: list[str] = ModelField(default_factory=list)  # globs; empty = every text file
    sources: list[str] = ModelField(default_factory=list)  # evidence source names, e.g. "nccl"
    scope: Scope = Scope.ANY
    rank: int | None = None
    min_count: int = 1
    max_count: int | None = None
    keeps: str | None = None  # why it keeps its own pattern for a catalogued message


FIELDS = (
    Field(
        "pattern",
        REGEX,
        "A linear-time regex matched against each line. A named "
        "group `(?P<rank>\\d+)` names the rank the line blames (the culprit).",
    ),
    Field("files", STRINGS, 'Globs choosing files: ["**/plog-*.log"]. Default: every file.'),
    Field("sources", WORDS, "Only files of these evidence kinds: [nccl, pytorch]."),
    Field("scope", WORD, "Which ranks must show it.", choices=SCOPES),
    Field("rank", INT, "With `scope rank`: the rank."),
    Field("min_count", INT, "At least this many matching lines (default 1)."),
    Field("max_count", INT, "At most this many matching lines."),
    Field(
        "keeps",
        TEXT,
        "Why this query keeps its own pattern though the catalogue has the message: a "
        "condition `where` cannot express yet (a range, a prefix, a comparison of two "
        "fields, the rank a line names). Read by `kb check`.",
    ),
)


def lower(
    node: s.EvidenceNode, v: dict[str, Any], common: dict[str, Any], lowering: Lowering
) -> LogQuery:
    return LogQuery(
        pattern=v["pattern"],
        files=v.get("files", []),
        sources=v.get("sources", []),
        scope=Scope(v.get("scope", "any")),
        rank=v.get("rank"),
        min_count=v.get("min_count", 1),
        max_count=v.get("max_count"),
        keeps=v.get("keeps"),
        **common,
    )


def check(q: LogQuery) -> Iterator[Diagnostic]:
    yield from rank_problems(q)
    if q.max_count is not None and q.max_count < q.min_count:
        yield Diagnostic.at(
            q.span,
            f"`{q.name}`: max_count {q.max_count} is below min_count {q.min_count}",
            code="impossible-query",
        )
    sources = runtime.source_names()
    if sources is None:
        return
    for source in q.sources:
        if source not in sources:
            yield Diagnostic.at(
                q.span,
                f"`{q.name}`: unknown evidence source `{source}`",
                code="unknown-source",
                help=did_you_mean(source, sources) or f"sources: {', '.join(sorted(sources))}",
            )


# Evidence source names (kb.evidence.sources) in words; unknown ones are shown as code.
SOURCE_WORDS: dict[str, str] = {
    "nccl": "NCCL logs",
    "hccl": "HCCL logs",
    "plog": "Ascend plog files",
    "pytorch": "PyTorch logs",
    "torch": "PyTorch logs",
    "torchrun": "torchrun logs",
    "deepspeed": "DeepSpeed logs",
    "accelerate": "Accelerate logs",
    "stdout": "console output",
    "text-log": "text logs",
    "pip-freeze": "`pip freeze` output",
    "collect-env": "`collect_env` output",
    "nvidia-smi": "`nvidia-smi` output",
    "npu-smi": "`npu-smi` output",
    "dmesg": "kernel messages (`dmesg`)",
    "py-spy": "`py-spy dump` stacks",
    "traceback": "Python tracebacks",
}


def _sources(names: list[str]) -> Phrase:
    out: list[str | Code] = []
    for i, name in enumerate(names):
        if i:
            out.append(" or " if i == len(names) - 1 else ", ")
        words = SOURCE_WORDS.get(name, "")
        out.extend([words] if words else [Code(name), " evidence"])
    return tuple(out)


def _where(q: LogQuery) -> Phrase:
    place: Phrase = ("in the ", *_sources(q.sources)) if q.sources else ("in the logs",)
    if q.files:
        globs: list[str | Code] = []
        for i, g in enumerate(q.files):
            globs += [" or "] * bool(i) + [Code(g)]
        place += (" (files matching ", *globs, ")")
    return (*place, " ", ranks_words(q.scope, q.rank))


def _count(q: LogQuery) -> str:
    if q.max_count is not None and q.max_count == q.min_count:
        return "Exactly one line" if q.min_count == 1 else f"Exactly {q.min_count} lines"
    if q.max_count is not None and q.min_count <= 1:
        return f"At most {q.max_count} lines" if q.max_count != 1 else "At most one line"
    if q.max_count is not None:
        return f"Between {q.min_count} and {q.max_count} lines"
    return "A line" if q.min_count <= 1 else f"At least {q.min_count} lines"


def describe(q: LogQuery) -> Phrase:
    return (_count(q), " matching ", *regex_phrase(q.pattern), " ", *_where(q))


KIND = QueryKind(
    name="log",
    model=LogQuery,
    fields=FIELDS,
    required=("pattern",),
    lower=lower,
    describe=describe,
    check=check,
    words="log line",
)
