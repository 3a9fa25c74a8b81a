"""The examples in module docstrings are tests too (insights-core style): one runner for every
package that has them, each held to the number of examples it has, so a module whose examples
stop being collected fails here."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

# package → examples it holds at least (reader: sources and layout; collect: launch and
# stopping; report: platform, command fitting, tried settings, inert markdown; redact: names,
# shapes, assignments)
PACKAGES = {"kb.evidence": 160, "kb.collect": 10, "kb.report": 9, "kb.redact": 15}


@pytest.mark.parametrize(("package", "at_least"), sorted(PACKAGES.items()))
def test_docstring_examples(package: str, at_least: int) -> None:
    attempted = failed = 0
    root = importlib.import_module(package)
    for mod in pkgutil.walk_packages(root.__path__, f"{package}."):
        result = doctest.testmod(importlib.import_module(mod.name))
        attempted, failed = attempted + result.attempted, failed + result.failed
    assert failed == 0 and attempted >= at_least
