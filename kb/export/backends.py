"""Converting the exported Sigma rules to a platform's queries through pySigma backends.

One entry per backend: how to build it and the processing pipeline that tells it how the
shipper's JSON records arrive. Optional extra `fleet`; nothing here is imported until a
conversion runs. A rule a backend cannot convert is reported with the reason, never skipped
silently.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kb.export.lucene import to_lucene
from kb.export.regex_compat import LUCENE_BACKENDS
from kb.export.sigma import render

INSTALL_HINT = "pip install 'distkb[fleet]'"


@dataclass
class Converted:
    rule_name: str
    rule_id: str
    query: str = ""
    error: str = ""
    correlation: bool = False
    note: str = ""  # said beside the query where it is written


@dataclass
class Conversion:
    backend: str
    queries: list[Converted] = field(default_factory=list)

    @property
    def errors(self) -> list[Converted]:
        return [q for q in self.queries if q.error]


def _duckdb() -> Any:
    from sigma_backend_duckdb import DuckDBBackend

    class QuotingDuckDBBackend(DuckDBBackend):
        """pySigma-backend-duckdb 0.1.4 puts a regex into a SQL string as it is, so a quote in
        a pattern (`NCCL WARN Cuda failure 'out of memory'`) ends the string; SQL doubles it."""

        re_escape_char = "'"
        re_escape = ("'",)
        re_escape_escape_char = False

    return QuotingDuckDBBackend()


def _loki() -> Any:
    from sigma.backends.loki import LogQLBackend
    from sigma.pipelines.loki.loki import LokiCustomAttributes, SetCustomAttributeTransformation
    from sigma.processing.pipeline import ProcessingItem, ProcessingPipeline

    # the shipper sends JSON records: parse them with `| json` rather than logfmt
    pipeline = ProcessingPipeline(
        name="distkb JSON lines",
        priority=20,
        items=[
            ProcessingItem(
                identifier="distkb_json_parser",
                transformation=SetCustomAttributeTransformation(
                    attribute=LokiCustomAttributes.PARSER.value, value="json"
                ),
            )
        ],
    )

    class WholeRuleLogQLBackend(LogQLBackend):
        """pySigma splits a rule whose query passes 4,096 characters into several queries; a
        split rule cannot sit in a correlation, and the split drops the top `or`'s last
        arguments when they do not divide evenly. A rule stays one query here, and a query
        longer than Loki's parser accepts is noted (`loki_limit_note`), never cut."""

        def partition_rule(self, condition: Any, partitions: int) -> list[Any]:
            return [condition]

    return WholeRuleLogQLBackend(processing_pipeline=pipeline)


# Loki's LogQL parser refuses a query longer than this (grafana/loki#3471, `maxInputSize`)
LOKI_MAX_QUERY_BYTES = 5120


def loki_limit_note(query: str) -> str:
    """What to tell the user when a LogQL query is longer than Loki will parse."""
    size = len(query.encode("utf-8"))
    if size <= LOKI_MAX_QUERY_BYTES:
        return ""
    return (
        f"{size} bytes, over Loki's {LOKI_MAX_QUERY_BYTES}-byte query limit: run it with "
        "logcli in parts, or confirm the job with `kb diagnose`"
    )


def _lucene() -> Any:
    from sigma.backends.elasticsearch import LuceneBackend

    return LuceneBackend()


def _esql() -> Any:
    from sigma.backends.elasticsearch import ESQLBackend

    return ESQLBackend()


BACKENDS: dict[str, Callable[[], Any]] = {
    "duckdb": _duckdb,
    "loki": _loki,
    "elasticsearch": _esql,  # ES|QL: the Elasticsearch language that has correlations
    "lucene": _lucene,
}
# Loki's label filters (`| json | line=~"…"`) match the whole value, like Prometheus matchers:
# a pattern is wrapped so that it may match anywhere in the line, as kb's scanner does.
# Lucene (Elasticsearch) reads another regex language: patterns are rewritten for it.
WRAPPED = {"loki", "elasticsearch", "lucene"}


def _shaped_value(backend: str, key: str, value: str) -> tuple[str, str]:
    if backend in LUCENE_BACKENDS:
        ignore_case = key.endswith("|i") or "|i|" in key
        return key.replace("|i", ""), to_lucene(value, ignore_case).regex
    return key, f".*(?:{value}).*"


def _wrapped(rule: dict[str, Any], backend: str = "loki") -> dict[str, Any]:
    out = copy.deepcopy(rule)
    for item in out.get("detection", {}).values():
        if isinstance(item, dict):
            for key, value in list(item.items()):
                if "|re" in key and isinstance(value, str):
                    del item[key]
                    new_key, new_value = _shaped_value(backend, key, value)
                    item[new_key] = new_value
    return out


def _shape(backend: str, rules: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [_wrapped(r, backend) for r in rules] if backend in WRAPPED else rules


def _collection(rules: list[dict[str, Any]]) -> Any:
    from sigma.collection import SigmaCollection

    collection = SigmaCollection.from_yaml(render(rules))
    collection.resolve_rule_references()
    return collection


def convert(backend: str, rules: list[dict[str, Any]]) -> Conversion:
    """Convert one case's rules (base rules first, then clause rules and the correlation).

    Base rules are converted on their own (a rule inside a correlation comes out as a bare
    condition, to be embedded), correlations with the rules they refer to."""
    from sigma.exceptions import SigmaError

    engine = BACKENDS[backend]()
    shaped = _shape(backend, rules)
    base = [r for r in shaped if "correlation" not in r]
    result = Conversion(backend=backend)
    for collection, correlations in ((_collection(base), False), (_collection(shaped), True)):
        for rule in collection.rules:
            is_correlation = type(rule).__name__ == "SigmaCorrelationRule"
            if correlations and not is_correlation:
                # a correlation is built from its rules' conversions: convert them first
                with contextlib.suppress(SigmaError, NotImplementedError):
                    engine.convert_rule(rule)
                continue
            if is_correlation and not correlations:
                continue
            item = Converted(
                rule_name=str(rule.name or rule.title),
                rule_id=str(rule.id),
                correlation=is_correlation,
            )
            try:
                if is_correlation:
                    queries = engine.convert_correlation_rule(rule)
                else:
                    queries = engine.convert_rule(rule)
                item.query = "\n".join(str(q) for q in queries)
                if backend == "elasticsearch":
                    item.query = esql_escaped(item.query)
                if backend == "loki":
                    item.note = loki_limit_note(item.query)
            except (SigmaError, NotImplementedError, RuntimeError) as exc:
                item.error = f"{type(exc).__name__}: {exc}"
            result.queries.append(item)
    return result


_ESQL_CONTROL = {"\n": "\\n", "\r": "\\r"}


def esql_escaped(query: str) -> str:
    r"""Line breaks inside ES|QL string literals written as escapes: ES|QL's lexer refuses a
    raw CR or LF in a `"..."` string (EsqlBaseLexer.g4: UNESCAPED_CHARS is ~[\r\n"\\]), and
    pySigma's ES|QL backend writes `\s` rewritten for Lucene as raw characters.

    >>> esql_escaped('where line rlike ".*[^ \n].*"')
    'where line rlike ".*[^ \\n].*"'
    >>> esql_escaped('from *\n| keep job') == 'from *\n| keep job'
    True
    """
    out, in_string, i = [], False, 0
    while i < len(query):
        ch = query[i]
        if in_string and ch == "\\":
            out.append(query[i : i + 2])
            i += 2
            continue
        if ch == '"':
            in_string = not in_string
        out.append(_ESQL_CONTROL.get(ch, ch) if in_string else ch)
        i += 1
    return "".join(out)


def formats(backend: str) -> dict[str, str]:
    """The output formats the backend offers (`default`: one query per rule)."""
    return dict(BACKENDS[backend]().formats)


def convert_to_format(backend: str, rules: list[dict[str, Any]], output_format: str) -> str:
    """The backend's own output for a whole case (alert rule files such as Loki's `ruler`).

    Raises ValueError with the backend's reason when it cannot (e.g. Elastic's SIEM formats
    download MITRE ATT&CK data, which an offline machine cannot)."""
    from sigma.exceptions import SigmaError

    engine = BACKENDS[backend]()
    shaped = _shape(backend, rules)
    try:
        out = engine.convert(_collection(shaped), output_format=output_format)
    except (SigmaError, NotImplementedError, RuntimeError) as exc:
        raise ValueError(f"{type(exc).__name__}: {exc}") from exc
    if isinstance(out, str):
        return out if out.endswith("\n") else out + "\n"
    return "".join(f"{item}\n" for item in out)
