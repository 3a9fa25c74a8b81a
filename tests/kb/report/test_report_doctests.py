"""The examples in kb/report's docstrings are tests too (platform detection, command fitting,
what the notes say was tried, inert markdown, safe terminal text)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import kb.report


def test_docstring_examples() -> None:
    attempted = failed = 0
    for mod in pkgutil.walk_packages(kb.report.__path__, "kb.report."):
        result = doctest.testmod(importlib.import_module(mod.name))
        attempted, failed = attempted + result.attempted, failed + result.failed
    assert failed == 0 and attempted >= 9
