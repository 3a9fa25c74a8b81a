"""pytest plugin: every `case.kb` becomes a test module, every fixture folder a test item.

Registered through the `pytest11` entry point, so a private case pack tests its cases with
a plain `pytest` in its own repository. Items are named `<case folder>/case.kb::<fixture>`,
for example `cases/nccl-p2p-consumer-gpu-hang/case.kb::positive/rtx4090x2`. A fixture
with `todo` is an expected failure: reported, never failing the run.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dsl.api import CASE_FILE


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    if file_path.name == CASE_FILE:
        return CaseModule.from_parent(parent, path=file_path)
    return None


class CaseFixtureError(Exception):
    """A fixture did not yield what its case declares."""


class CaseModule(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        from kb.fixtures import default_roots, fixtures_of, knowledge_base_for

        roots = default_roots(self.path.parent)
        kb = knowledge_base_for(roots)
        compiled = next(
            (c for c in kb.cases if Path(c.case.folder).resolve() == self.path.parent.resolve()),
            None,
        )
        if compiled is None:
            yield CaseCompiles.from_parent(self, name="compiles", roots=roots)
            return
        yield CaseCompiles.from_parent(self, name="compiles", roots=roots)
        for spec in fixtures_of(compiled.case):
            item = FixtureItem.from_parent(self, name=spec.path, spec=spec, roots=roots)
            if spec.expectation.todo:
                item.add_marker(
                    pytest.mark.xfail(reason=f"known gap: {spec.expectation.todo}", strict=False)
                )
            yield item


class CaseCompiles(pytest.Item):
    """The case file parses, lowers and validates without errors."""

    def __init__(self, *, roots: tuple[str, ...], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.roots = roots

    def runtest(self) -> None:
        from dsl.api import load_cases
        from dsl.diagnostics import has_errors, render_all

        result = load_cases(list(self.roots), with_env=False)
        own = [d for d in result.diagnostics if Path(d.path).resolve() == self.path.resolve()]
        if has_errors(own):
            raise CaseFixtureError(render_all(own, result.sources))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, CaseFixtureError):
            return f"{self.path}: the case does not compile\n{excinfo.value}"
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.path.parent.name}::compiles"


class FixtureItem(pytest.Item):
    def __init__(self, *, spec: Any, roots: tuple[str, ...], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.roots = roots

    def runtest(self) -> None:
        from kb.fixtures import check_fixture

        outcome = check_fixture(self.spec, self.roots)
        if not outcome.passed:
            raise CaseFixtureError("\n".join(outcome.problems))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, CaseFixtureError):
            return (
                f"case {self.spec.case_id}, fixture {self.spec.path} "
                f"({self.spec.folder}):\n  " + str(excinfo.value).replace("\n", "\n  ")
            )
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.spec.case_id}::{self.spec.path}"
