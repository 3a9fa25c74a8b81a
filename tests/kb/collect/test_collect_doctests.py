"""The examples in kb/collect's docstrings are tests too."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import kb.collect


def test_docstring_examples() -> None:
    attempted = failed = 0
    for mod in pkgutil.walk_packages(kb.collect.__path__, "kb.collect."):
        result = doctest.testmod(importlib.import_module(mod.name))
        attempted, failed = attempted + result.attempted, failed + result.failed
    assert failed == 0 and attempted >= 10
