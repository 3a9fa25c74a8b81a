"""Facts merge field by field: every field of `Facts` is either merged from each file or set
by the reader for the whole bundle, and a field that is neither fails here."""

from __future__ import annotations

import dataclasses

import pytest

from kb.evidence import merge
from kb.evidence.facts import EvidenceLine, Facts


def _sample(f: dataclasses.Field[object]) -> object:
    """A value other than the default, for any field."""
    if f.name == "last_progress":
        return {0: EvidenceLine(file="a.log", line=1, text="step 1")}
    if f.name == "accelerate_config":
        return {"num_processes": 2}
    if f.default_factory is list:
        return [object()]
    return f"value of {f.name}"


def test_every_field_of_one_file_reaches_the_total() -> None:
    part = Facts(**{f.name: _sample(f) for f in dataclasses.fields(Facts)})  # type: ignore[arg-type]
    total = Facts()
    merge.merge_into(total, part, "text-log", "a.log")
    for f in dataclasses.fields(Facts):
        if f.name in merge.READER_FIELDS:
            assert getattr(total, f.name) == getattr(Facts(), f.name), f.name
        else:
            assert getattr(total, f.name) == getattr(part, f.name), f.name


def test_a_field_without_a_rule_is_refused() -> None:
    @dataclasses.dataclass
    class More(Facts):
        counts: dict[int, int] = dataclasses.field(default_factory=dict)

    extra = next(f for f in dataclasses.fields(More) if f.name == "counts")
    with pytest.raises(TypeError, match="no merge rule"):
        merge._rule(extra)


def test_a_second_version_is_a_conflict_after_the_files_own() -> None:
    total = Facts(driver_version="535.104")
    part = Facts(driver_version="550.54", conflicts=["the file's own"])
    merge.merge_into(total, part, "nvidia-smi", "smi.txt")
    assert total.driver_version == "535.104"
    assert total.conflicts == [
        "the file's own",
        "driver version is 535.104 elsewhere but 550.54 in smi.txt",
    ]
