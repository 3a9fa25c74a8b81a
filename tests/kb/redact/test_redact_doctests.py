"""The examples in kb/redact's docstrings are tests too (names, shapes, assignments, the
redactor and kb new's fixture redactor)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import kb.redact


def test_docstring_examples() -> None:
    attempted = failed = 0
    for mod in pkgutil.walk_packages(kb.redact.__path__, "kb.redact."):
        result = doctest.testmod(importlib.import_module(mod.name))
        attempted, failed = attempted + result.attempted, failed + result.failed
    assert failed == 0 and attempted >= 15
