"""Real incidents: fixtures taken from public threads, each with where it came from.

A fixture folder that holds an `incident.yaml` is a real incident: the machine output as it
was posted, a `notes.md` restating what the reporter said, and this metadata. `kb eval`
measures the knowledge base on them; the evidence reader never reads the metadata file.

    source: https://github.com/pytorch/pytorch/issues/50575
    case: nccl-socket-wrong-interface   # what the incident really is, or `none`
    near_miss_of: null                  # the case it resembles but is not
    status: confirmed                   # or likely: the thread indicated, never confirmed
    established: "What the thread established, in one sentence."
    posted_by: reporter                 # or other-user, maintainer
    first_seen:                         # the first `kb diagnose`, before any case changed for it
      commit: 1a2b3c4d                  # written once (`python -m kb.first_seen`), never edited
      date: 2026-12-02
      ranked: [[nccl-socket-wrong-interface, likely]]   # (case, level), best first; [] = nothing

Incidents stored before first-seen results were kept were back-filled: diagnosed with the code
of the commit before the one that stored them, marked `backfilled: true`; where that code could
not run, they say `first_seen: unknown`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from dsl import model as m
from kb.evidence.inputs import INCIDENT_FILE
from kb.fixtures import FixtureSpec, fixtures_of

MAX_METADATA_BYTES = 16 * 1024


class FirstSeen(BaseModel):
    """How the tool did on the incident the first time it saw it: the honest accuracy figure."""

    model_config = ConfigDict(extra="forbid")

    commit: str = Field(min_length=7, max_length=40)
    date: str
    ranked: list[tuple[str, str]] = Field(default_factory=list)  # (case id, level), best first
    # re-run later at the commit before the incident was stored, not recorded live
    # (scripts/backfill_first_seen.py): same code, same evidence, but measured after the fact
    backfilled: bool = False

    @field_validator("date", mode="before")
    @classmethod
    def _date_text(cls, value: object) -> str:
        return str(value)  # YAML reads an unquoted 2026-12-02 as a date


class IncidentMeta(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str = Field(min_length=8)
    case: str | None  # null or `none`: a failure no case covers
    near_miss_of: str | None = None
    status: Literal["confirmed", "likely"]
    established: str = Field(min_length=10)
    posted_by: Literal["reporter", "other-user", "maintainer"] = "reporter"
    first_seen: FirstSeen | Literal["unknown"] | None = None

    @field_validator("source")
    @classmethod
    def _public_url(cls, value: str) -> str:
        if not value.startswith(("https://", "http://")):
            raise ValueError("source must be the public thread's URL")
        return value

    @property
    def expected(self) -> str | None:
        """The case that should come first, or None for a failure no case covers."""
        return None if self.case in (None, "none", "") else self.case


@dataclass(frozen=True)
class Incident:
    fixture: FixtureSpec
    meta: IncidentMeta

    @property
    def name(self) -> str:
        return f"{self.fixture.case_id}/{self.fixture.path}"


@dataclass(frozen=True)
class IncidentProblem:
    path: str
    message: str


def read_meta(folder: Path) -> IncidentMeta | str | None:
    """The folder's incident metadata, an error message, or None when it has none."""
    path = folder / INCIDENT_FILE
    if not path.is_file():
        return None
    from ruamel.yaml import YAML, YAMLError

    try:
        if path.stat().st_size > MAX_METADATA_BYTES:
            return f"larger than {MAX_METADATA_BYTES} bytes"
        data = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, YAMLError) as exc:
        return f"unreadable: {exc}"
    if not isinstance(data, dict):
        return "not a mapping of keys to values"
    try:
        return IncidentMeta.model_validate(data)
    except ValidationError as exc:
        return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())


def collect(cases: list[m.Case]) -> tuple[list[Incident], list[IncidentProblem]]:
    """Every real incident among the cases' fixtures, and what is wrong with the others."""
    known = {c.id for c in cases}
    incidents: list[Incident] = []
    problems: list[IncidentProblem] = []
    for case in cases:
        for spec in fixtures_of(case):
            meta = read_meta(spec.folder)
            where = f"{spec.folder}/{INCIDENT_FILE}"
            if meta is None:
                continue
            if isinstance(meta, str):
                problems.append(IncidentProblem(where, meta))
                continue
            for field_name in ("case", "near_miss_of"):
                value = getattr(meta, field_name)
                if value not in (None, "none") and value not in known:
                    problems.append(IncidentProblem(where, f"{field_name}: unknown case `{value}`"))
            if spec.positive and meta.expected != case.id:
                problems.append(
                    IncidentProblem(
                        where, f"a positive fixture of {case.id} must say `case: {case.id}`"
                    )
                )
            if not spec.positive and meta.near_miss_of != case.id:
                problems.append(
                    IncidentProblem(
                        where, f"a negative fixture of {case.id} must say `near_miss_of: {case.id}`"
                    )
                )
            incidents.append(Incident(spec, meta))
    return incidents, problems
