"""Lowering validated cases into compiled checkers that `kb diagnose` loads without parsing.

A compiled checker is data, not code: the case model plus the scan patterns every log
query needs (keyed `case-id/query`) and a readable plan. Nothing from a case file is ever
evaluated as Python. Compiled cases are cached by the hash of the case file's text and
the compiler version, so editing a case recompiles just that case.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from dsl import model as m
from dsl.api import (
    DEFAULT_CASES,
    case_paths_from_env,
    display_path,
    find_case_files,
    known_case_ids,
    parse_case_file,
)
from dsl.cache_place import COMPILER_VERSION as COMPILER_VERSION
from dsl.cache_place import cache_dir as cache_dir
from dsl.cache_place import write_cache_file as write_cache_file
from dsl.catalogue import registry as catalogue_registry
from dsl.diagnostics import Diagnostic, has_errors
from dsl.validate import check_case, validate_cases

# Lines of one pattern counted per file and rank before the count may stop (a lower bound from
# then on); raised above a query's own min_count/max_count so its verdict cannot change.
COUNT_ENOUGH = 1000


class ScanPattern(BaseModel):
    """A regex the evidence scanner must look for, on behalf of one log query."""

    key: str  # "<case-id>/<query-name>"
    regex: str
    ignore_case: bool = False
    sources: list[str] = Field(default_factory=list)  # the query's kinds; empty = any
    files: list[str] = Field(default_factory=list)  # the query's path globs; empty = any
    # a count this high in one rank's file decides every comparison the query makes
    enough: int = COUNT_ENOUGH


class CompiledCase(BaseModel):
    source_path: str
    source_hash: str
    case: m.Case
    patterns: list[ScanPattern] = Field(default_factory=list)

    def plan(self) -> str:
        from dsl.explain import explain_case

        return explain_case(self.case, self.patterns)


class KnowledgeBase(BaseModel):
    compiler_version: str = COMPILER_VERSION
    cases: list[CompiledCase] = Field(default_factory=list)
    diagnostics: list[Diagnostic] = Field(default_factory=list)
    sources: dict[str, str] = Field(default_factory=dict)
    cache_hits: int = 0

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)

    def get(self, case_id: str) -> CompiledCase | None:
        return next((c for c in self.cases if c.case.id == case_id), None)

    def scan_patterns(self) -> list[ScanPattern]:
        return [p for c in self.cases for p in c.patterns]


def _flags(regex: m.Regex) -> str:
    """Inline flags for the scanner: `s` and `m` as written, `x` stripped by the engine."""
    return "".join(f for f in regex.flags if f in "smx")


def compile_case(case: m.Case, source_path: str, source_hash: str) -> CompiledCase:
    patterns = []
    for q in case.queries:
        if isinstance(q, m.LogQuery):
            flags = _flags(q.pattern)
            regex = f"(?{flags}){q.pattern.pattern}" if flags else q.pattern.pattern
            patterns.append(
                ScanPattern(
                    key=f"{case.id}/{q.name}",
                    regex=regex,
                    ignore_case=q.pattern.ignore_case,
                    sources=list(q.sources),
                    files=list(q.files),
                    enough=max(COUNT_ENOUGH, q.min_count, (q.max_count or 0) + 1),
                )
            )
    return CompiledCase(
        source_path=source_path, source_hash=source_hash, case=case, patterns=patterns
    )


def _cache_file(digest: str) -> Path:
    return cache_dir() / f"{digest}.json"


def _digest(path: Path, data: bytes, catalogue: str = "") -> str:
    """The cache key: the compiler, the case's path and text, and the catalogue it reads."""
    h = hashlib.sha256()
    h.update(COMPILER_VERSION.encode())
    h.update(catalogue.encode())
    h.update(str(path.resolve()).encode())
    h.update(b"\0")
    h.update(data)
    return h.hexdigest()


def _read_cached(digest: str) -> CompiledCase | None:
    try:
        return CompiledCase.model_validate_json(_cache_file(digest).read_bytes())
    except (OSError, ValidationError, ValueError):
        return None


def _write_cached(digest: str, compiled: CompiledCase) -> None:
    write_cache_file(_cache_file(digest), compiled.model_dump_json().encode("utf-8"))


def load_knowledge_base(
    paths: Sequence[Path | str] | None = None,
    *,
    with_env: bool = True,
    use_cache: bool = True,
) -> KnowledgeBase:
    """Compiled cases for `paths` (default: bundled cases/ plus KB_CASES), from cache if fresh."""
    roots: list[Path | str] = list(paths) if paths else [DEFAULT_CASES]
    if with_env:
        roots += case_paths_from_env()
    files, problems = find_case_files(roots)
    kb = KnowledgeBase(diagnostics=list(problems))
    catalogue = catalogue_registry.fingerprint()
    for path in files:
        try:
            data = path.read_bytes()
        except OSError as err:
            kb.diagnostics.append(
                Diagnostic(path=str(path), message=f"cannot read: {err}", code="io")
            )
            continue
        digest = _digest(path, data, catalogue)
        cached = _read_cached(digest) if use_cache else None
        if cached is not None:
            kb.cases.append(cached)
            kb.cache_hits += 1
            continue
        case, diagnostics, text = parse_case_file(path)
        if text is not None:
            kb.sources[display_path(path)] = text
        if case is not None:
            diagnostics.extend(check_case(case))
        kb.diagnostics.extend(diagnostics)
        if case is None or has_errors(diagnostics):
            continue
        compiled = compile_case(case, str(path), digest)
        kb.cases.append(compiled)
        if use_cache:
            _write_cached(digest, compiled)
    kb.diagnostics.extend(_cross_case_checks([c.case for c in kb.cases]))
    return kb


def _cross_case_checks(cases: list[m.Case]) -> list[Diagnostic]:
    """Checks that need every case at once (duplicate ids, unknown related cases)."""
    out = []
    for d in validate_cases(cases, known_case_ids(), per_case=False):
        if d.code in ("duplicate-id", "unknown-case"):
            out.append(d)
    return out


def dump_knowledge_base(kb: KnowledgeBase) -> str:
    """A stable JSON rendering, e.g. for `kb compile --output`."""
    return json.dumps(
        json.loads(kb.model_dump_json(exclude={"sources"})), indent=2, ensure_ascii=False
    )
