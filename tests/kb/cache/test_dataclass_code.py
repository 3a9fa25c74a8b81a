"""The dataclass method store: the classes are what the builtin `exec` makes, and a second
process takes their code from the store instead of compiling it."""

from __future__ import annotations

import builtins
import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kb.cache import dataclass_code


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(dataclass_code, "_known", None)
    monkeypatch.setattr(dataclass_code, "_new", {})
    monkeypatch.setitem(vars(dataclasses), "exec", dataclass_code._exec)  # as install() does
    return tmp_path


def _make() -> Any:
    @dataclasses.dataclass(frozen=True, order=True)
    class Point:
        x: int
        y: int = 0
        tags: list[str] = dataclasses.field(default_factory=list)

    return Point


def _python(code: str, cache: Path) -> str:
    env = dict(os.environ, KB_CACHE_DIR=str(cache))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_command_runs_with_the_store_installed(tmp_path: Path) -> None:
    code = (
        "import contextlib, dataclasses, io\n"
        "from kb.cache import dataclass_code\n"
        "from kb.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['evidence', {str(tmp_path)!r}])\n"
        "print(vars(dataclasses).get('exec') is dataclass_code._exec)"
    )
    assert _python(code, tmp_path) == "True"


def test_kb_help_makes_no_dataclass(tmp_path: Path) -> None:
    """`kb --help` answers without importing `dataclasses` (nor the store): it stays light."""
    code = (
        "import contextlib, io, sys\n"
        "from kb.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
        "print('dataclasses' in sys.modules, 'kb.cache.dataclass_code' in sys.modules)"
    )
    assert _python(code, tmp_path) == "False False"


def test_the_class_is_what_the_builtin_makes(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hooked = _make()
    monkeypatch.delitem(vars(dataclasses), "exec")
    plain = _make()
    for name in ("__init__", "__repr__", "__eq__", "__lt__", "__hash__", "__setattr__"):
        assert getattr(hooked, name).__code__ == getattr(plain, name).__code__, name
    p, q = hooked(1, tags=["a"]), plain(1, tags=["a"])
    assert repr(p) == repr(q)
    assert (p == hooked(1, 0, ["a"]), p < hooked(2), p == q) == (True, True, False)


def test_a_second_process_reads_the_code_instead_of_compiling(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _make()
    dataclass_code.flush()
    assert list(store.glob("dataclass-code-*.marshal"))
    monkeypatch.setattr(dataclass_code, "_known", None)  # as a new process starts

    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("compiled again")

    monkeypatch.setattr(builtins, "compile", refuse)
    assert _make()(3).x == 3


def test_a_corrupt_store_is_ignored(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _make()
    dataclass_code.flush()
    (path,) = store.glob("dataclass-code-*.marshal")
    path.write_bytes(path.read_bytes()[:-10])
    monkeypatch.setattr(dataclass_code, "_known", None)
    assert _make()(4, 5).y == 5
    assert dataclass_code._known == {}


def test_a_dataclass_made_while_the_cache_folder_module_loads(tmp_path: Path) -> None:
    """The store is found even when the first dataclass comes from the module that says where
    the cache is (`dsl.cache_place` imports the template's dataclasses)."""
    code = (
        "from kb.cache import dataclass_code\n"
        "dataclass_code.install()\n"
        "import dsl.cache_place, dsl.catalogue.load"
    )
    for _ in range(2):  # the store empty, then filled
        _python(code, tmp_path)
    assert list(tmp_path.glob("dataclass-code-*.marshal"))
