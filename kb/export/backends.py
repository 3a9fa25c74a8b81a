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

from kb.export import fields as f
from kb.export.sigma import render

INSTALL_HINT = "pip install 'distkb[fleet]'"


@dataclass
class Converted:
    rule_name: str
    rule_id: str
    query: str = ""
    error: str = ""
    correlation: bool = False


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
    return LogQLBackend(processing_pipeline=pipeline)


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
# a pattern is wrapped so that it may match anywhere in the line, as kb's scanner does
WRAPPED = {"loki"}


def _wrapped(rule: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(rule)
    for item in out.get("detection", {}).values():
        if isinstance(item, dict):
            for key, value in list(item.items()):
                if key.startswith(f"{f.LINE}|re") and isinstance(value, str):
                    item[key] = f".*(?:{value}).*"
    return out


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
    shaped = [_wrapped(r) if backend in WRAPPED else r for r in rules]
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
            except (SigmaError, NotImplementedError) as exc:
                item.error = f"{type(exc).__name__}: {exc}"
            result.queries.append(item)
    return result
