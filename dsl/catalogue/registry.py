"""The catalogue cases are lowered against: the bundled one, loaded once per process.

A case's `message`, `said` and `regression` queries name catalogue entries; lowering
resolves them here. Tests and `kb check` install a catalogue of their own with `use`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where a catalogue is made: its fingerprint needs no model
    from dsl.catalogue import model as cm

_current: cm.Catalogue | None = None
# Installed by `dsl.api` (which reads files): the registry itself imports no loader, so the
# query kinds that read it stay leaves of the import graph.
_load_default: Callable[[], cm.Catalogue] | None = None
_fingerprint_default: Callable[[], str] | None = None


def install(load: Callable[[], cm.Catalogue], fingerprint: Callable[[], str]) -> None:
    global _load_default, _fingerprint_default
    _load_default, _fingerprint_default = load, fingerprint


def current() -> cm.Catalogue:
    """The installed catalogue, or the bundled one (plus KB_CATALOGUE), loaded on first use."""
    global _current
    if _current is None:
        from dsl.catalogue import model as cm

        _current = _load_default() if _load_default is not None else cm.Catalogue()
    return _current


def fingerprint() -> str:
    """What the compile cache keys on, without parsing: the hash of the catalogue's files."""
    if _current is not None:
        return _current.fingerprint
    return _fingerprint_default() if _fingerprint_default is not None else ""


@contextmanager
def use(catalogue: cm.Catalogue) -> Iterator[cm.Catalogue]:
    """Lower cases against `catalogue` for the duration of a block."""
    global _current
    before, _current = _current, catalogue
    try:
        yield catalogue
    finally:
        _current = before
