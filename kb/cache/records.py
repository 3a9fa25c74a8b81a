"""Plain records that stand in for the knowledge base's pydantic objects in its snapshot.

A warm `kb diagnose` only reads the compiled cases: importing pydantic and building the
model classes, then running `__setstate__` for ~12,000 objects, was most of its CPU. The
snapshot (`kb.cache.knowledge`) therefore stores each model object as a record: an
instance of a plain class named like the model class, with the same attributes and values
(nested objects are records too; enumerations are the `dsl.choices` members), the few
methods the runtime calls, and the model's frozenness; a query also carries the line that
describes it (`_explained`, read by `dsl.explain.describe_query`). Unpickling a record is
`object.__new__` and a dict update, both in C, and needs no import beyond this module.

The record classes are made on demand from what the snapshot names, so a field added to
the model needs no change here; a method the runtime calls on a loaded case does (below).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dsl.choices import Severity

POSITIONS = frozenset({"span", "item_spans"})  # as dsl.span.POSITIONS: never compared


def _compared(name: str) -> bool:
    """An attribute of the model itself, not a position nor something the writer added."""
    return name not in POSITIONS and not name.startswith("_")


class Record:
    """The attributes of one model object; compares like `dsl.span.Node` (spans aside)."""

    _frozen = True
    _model = ""  # the model class it stands in for, "module.Name"

    def __setattr__(self, name: str, value: Any) -> None:
        if self._frozen:
            raise AttributeError(f"{type(self).__name__} is frozen")
        object.__setattr__(self, name, value)

    def __eq__(self, other: object) -> bool:
        if type(self) is not type(other):
            return NotImplemented
        mine, theirs = vars(self), vars(other)
        return all(mine[k] == theirs.get(k) for k in mine if _compared(k))

    def __hash__(self) -> int:
        return hash(type(self).__name__)

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if _compared(k))
        return f"{type(self).__name__}({shown})"


# ------------------------------------------------------------ the methods the runtime calls


class _Case:
    def query(self: Any, name: str) -> Any:
        return next((q for q in self.queries if q.name == name), None)

    def item_span(self: Any, field_name: str, index: int) -> Any:
        spans = self.item_spans.get(field_name, [])
        return spans[index] if index < len(spans) else self.span

    def fixture_span(self: Any, path: str) -> Any:
        declared = (f for f in self.fixtures if f.path.strip("/") == path.strip("/"))
        return next((f.span for f in declared), self.span)


class _Regex:
    @property
    def ignore_case(self: Any) -> bool:
        return "i" in self.flags


class _Diagnostic:
    @property
    def location(self: Any) -> str:
        if self.line:
            return f"{self.path}:{self.line}:{self.column}"
        return self.path


class _CompiledCase:
    def plan(self: Any) -> str:
        from dsl.explain import explain_case

        return explain_case(self.case, self.patterns)


class _KnowledgeBase:
    @property
    def ok(self: Any) -> bool:
        return not any(d.severity is Severity.ERROR for d in self.diagnostics)

    def get(self: Any, case_id: str) -> Any:
        return next((c for c in self.cases if c.case.id == case_id), None)

    def scan_patterns(self: Any) -> list[Any]:
        return [p for c in self.cases for p in c.patterns]


# keyed by the model class's module and name; each must behave as the model's method does
# (tests/kb/cache/test_records.py compares them)
METHODS: dict[str, type] = {
    "dsl.model.Case": _Case,
    "dsl.values.Regex": _Regex,
    "dsl.diagnostics.Diagnostic": _Diagnostic,
    "dsl.compiler.CompiledCase": _CompiledCase,
    "dsl.compiler.KnowledgeBase": _KnowledgeBase,
}

_classes: dict[tuple[str, bool], type[Record]] = {}


def record_class(model: str, frozen: bool) -> type[Record]:
    """The record class standing in for model class `model` ("module.Name"), made once."""
    found = _classes.get((model, frozen))
    if found is None:
        name = model.rpartition(".")[2]
        bases = (METHODS[model], Record) if model in METHODS else (Record,)
        found = type(name, bases, {"_frozen": frozen, "__module__": __name__, "_model": model})
        _classes[(model, frozen)] = found
    return found


_PLAIN = (str, int, float, bool, type(None))
_NOT_MINE = object()  # what a leaf converter returns for a value it does not convert


def _copied(value: Any, convert: Callable[[Any], Any]) -> Any:
    """A copy of container `value` with `convert` applied to its items, or `_NOT_MINE`."""
    if isinstance(value, list):
        return [convert(v) for v in value]
    if isinstance(value, tuple):
        return tuple(convert(v) for v in value)
    if isinstance(value, dict):
        return {k: convert(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        return type(value)(convert(v) for v in value)
    return _NOT_MINE


def _copy_tree(root: Any, convert_object: Callable[[Any, Callable[[Any], Any]], Any]) -> Any:
    """`root` with its lists, tuples, dicts and sets copied and each object `convert_object`
    knows made anew (it gets the value and this walk, for the object's own fields); plain
    values and anything else kept. An object met twice is converted once and shared."""
    done: dict[int, Any] = {}

    def convert(value: Any) -> Any:
        if isinstance(value, _PLAIN):
            return value
        key = id(value)
        if key in done:
            return done[key]
        out = convert_object(value, convert)
        if out is _NOT_MINE:
            out = _copied(value, convert)
        if out is _NOT_MINE:
            return value  # an enumeration member (dsl.choices) or another plain value
        done[key] = out
        return out

    return convert(root)


def to_records(root: Any) -> Any:
    """`root` with every pydantic object in it made a record (containers copied, other values
    kept), and every source position (`dsl.span.Span`) one shared empty record. Only the
    snapshot's writer calls it, on the cold path: it is the one place that needs pydantic."""
    from pydantic import BaseModel

    from dsl.explain import describe_query
    from dsl.kinds.base import Query
    from dsl.span import Span

    empty_span = record_class("dsl.span.Span", frozen=True)()
    empty_span.__dict__.update(Span().__dict__)

    def record(value: Any, convert: Callable[[Any], Any]) -> Any:
        if type(value) is Span:
            return empty_span
        if not isinstance(value, BaseModel):
            return _NOT_MINE
        model = type(value)
        cls = record_class(
            f"{model.__module__}.{model.__qualname__}",
            frozen=bool(model.model_config.get("frozen")),
        )
        out = object.__new__(cls)
        out.__dict__.update({k: convert(v) for k, v in value.__dict__.items()})
        if isinstance(value, Query):  # its line for the report, made with its kind
            out.__dict__["_explained"] = describe_query(value)
        return out

    return _copy_tree(root, record)


def to_models(root: Any) -> Any:
    """The pydantic objects `root`'s records stand in for (`model_construct`: the values were
    validated when the snapshot was written), for the commands that read the model itself
    (`kb test`, `kb eval`, `kb export`, ...); the shared empty position becomes one `Span()`."""
    import importlib

    def model(value: Any, convert: Callable[[Any], Any]) -> Any:
        if not isinstance(value, Record):
            return _NOT_MINE
        module, _, name = value._model.rpartition(".")
        cls = getattr(importlib.import_module(module), name)
        state = {k: convert(v) for k, v in vars(value).items() if not k.startswith("_")}
        return cls.model_construct(**state)

    return _copy_tree(root, model)
