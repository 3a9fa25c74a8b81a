"""`hardware`: the devices a tool listed (or the user named), their model and number."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

from dsl.diagnostics import Diagnostic
from dsl.fields import INT, REGEX, WORD, Field
from dsl.kinds.base import Lowering, Phrase, Query, QueryKind, regex_phrase
from dsl.values import Regex

if TYPE_CHECKING:  # annotations only: a warm `kb diagnose` needs no syntax tree
    from dsl import syntax as s


class HardwareQuery(Query):
    kind: Literal["hardware"] = "hardware"
    device: Literal["gpu", "npu", "any"] = "any"
    model: Regex | None = None
    min_devices: int | None = None
    max_devices: int | None = None


FIELDS = (
    Field("device", WORD, "Kind of device.", choices=("gpu", "npu", "any")),
    Field("model", REGEX, "Device model pattern: /RTX 40\\d0/."),
    Field("min_devices", INT, "At least this many devices."),
    Field("max_devices", INT, "At most this many devices."),
)


def lower(
    node: s.EvidenceNode, v: dict[str, Any], common: dict[str, Any], lowering: Lowering
) -> HardwareQuery:
    return HardwareQuery(
        device=v.get("device", "any"),
        model=v.get("model"),
        min_devices=v.get("min_devices"),
        max_devices=v.get("max_devices"),
        **common,
    )


def check(q: HardwareQuery) -> Iterator[Diagnostic]:
    if q.min_devices is not None and q.max_devices is not None and q.max_devices < q.min_devices:
        yield Diagnostic.at(
            q.span, f"`{q.name}`: max_devices is below min_devices", code="impossible-query"
        )


def describe(q: HardwareQuery) -> Phrase:
    device = {"gpu": "GPU", "npu": "NPU", "any": "GPU or NPU"}[q.device]
    text: Phrase = (f"A {device}",)
    if q.model is not None:
        text += (" whose model matches ", *regex_phrase(q.model))
    counts = []
    if q.min_devices is not None:
        counts.append(f"at least {q.min_devices}")
    if q.max_devices is not None:
        counts.append(f"at most {q.max_devices}")
    if counts:
        text += (f", with {' and '.join(counts)} devices in the machine",)
    return text


KIND = QueryKind(
    name="hardware",
    model=HardwareQuery,
    fields=FIELDS,
    required=(),
    lower=lower,
    describe=describe,
    check=check,
    words="hardware",
    reads="nvidia-smi, npu-smi, collect_env",
)
