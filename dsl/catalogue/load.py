"""Find, read, parse and lower the catalogue's files, collecting every problem.

The catalogue is read when a case needs it (a `message`, `said` or `regression` query being
lowered) and by `kb check`; its fingerprint (a hash of the files' bytes, cheap) keys the
compile cache, so editing a message recompiles the cases that read it.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from dsl.catalogue import remembered

if TYPE_CHECKING:  # imported where used: a warm `kb diagnose` only asks for the fingerprint
    from dsl.catalogue import model as cm
    from dsl.diagnostics import Diagnostic

DEFAULT_CATALOGUE = Path(__file__).resolve().parent.parent.parent / "catalogue"
# Bounds for a stranger's catalogue pack: files, and bytes per file (as for a case file).
MAX_CATALOGUE_FILES = 2000
MAX_CASE_BYTES = 1024 * 1024


def display_path(path: Path) -> str:
    """As diagnostics name a file: relative to the working folder when it is inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


@dataclass
class CatalogueLoad:
    catalogue: cm.Catalogue
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)  # path -> text, for carets
    files: list[Path] = field(default_factory=list)


def is_catalogue_path(path: Path | str) -> bool:
    """A path inside a folder named `catalogue` (or that folder) holds declarations, not a case."""
    return "catalogue" in Path(path).resolve().parts


def catalogue_paths_from_env() -> list[Path]:
    """Extra catalogue folders from `KB_CATALOGUE` (os.pathsep-separated), like KB_CASES."""
    raw = os.environ.get("KB_CATALOGUE", "")
    return [Path(p) for p in raw.split(os.pathsep) if p.strip()]


def catalogue_files(roots: Iterable[Path]) -> list[Path]:
    """Every `.kb` file under the roots (a file counts as itself), sorted, symlinks not followed."""
    found: dict[Path, None] = {}
    for root in roots:
        if root.is_file() and not root.is_symlink():
            found.setdefault(root, None)
        elif root.is_dir() and not root.is_symlink():
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                for name in sorted(filenames):
                    path = Path(dirpath) / name
                    if name.endswith(".kb") and not path.is_symlink():
                        found.setdefault(path, None)
                if len(found) > MAX_CATALOGUE_FILES:
                    break
    return list(found)[:MAX_CATALOGUE_FILES]


def fingerprint(files: Iterable[Path]) -> str:
    h = hashlib.sha256()
    for path in files:
        h.update(str(path).encode())
        h.update(b"\0")
        try:
            with path.open("rb") as handle:
                h.update(handle.read(MAX_CASE_BYTES + 1))
        except OSError:
            h.update(b"<unreadable>")
    return h.hexdigest()[:16]


def default_roots(with_env: bool = True) -> list[Path]:
    roots = [DEFAULT_CATALOGUE] if DEFAULT_CATALOGUE.is_dir() else []
    return roots + (catalogue_paths_from_env() if with_env else [])


def load_catalogue(roots: Iterable[Path] | None = None, *, with_env: bool = True) -> CatalogueLoad:
    """The catalogue under `roots` (default: the bundled `catalogue/` plus KB_CATALOGUE)."""
    files = catalogue_files(list(roots) if roots is not None else default_roots(with_env))
    from dsl.catalogue import model as cm
    from dsl.catalogue.lower import CatalogueLowerer
    from dsl.diagnostics import Diagnostic
    from dsl.parser import CaseSyntaxError, parse_declarations  # Lark only when parsing

    out = CatalogueLoad(catalogue=cm.Catalogue(fingerprint=fingerprint(files)), files=files)
    declared: dict[tuple[str, str], str] = {}
    for path in files:
        shown = display_path(path)
        try:
            with path.open("rb") as handle:
                data = handle.read(MAX_CASE_BYTES + 1)
            if len(data) > MAX_CASE_BYTES:
                out.diagnostics.append(
                    Diagnostic(path=shown, message="larger than 1 MiB: not read", code="io")
                )
                continue
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError) as err:
            out.diagnostics.append(Diagnostic(path=shown, message=f"cannot read: {err}", code="io"))
            continue
        out.sources[shown] = text
        try:
            blocks = parse_declarations(text, shown)
        except CaseSyntaxError as err:
            out.diagnostics.append(err.diagnostic)
            continue
        lowerer = CatalogueLowerer()
        for block in blocks:
            decl = lowerer.declaration(block)
            if decl is None:
                continue
            key = (block.name, decl.id)
            if key in declared:
                lowerer.error(
                    block.span,
                    f"{block.name} `{decl.id}` is declared twice (first in {declared[key]})",
                    "duplicate-id",
                )
                continue
            declared[key] = f"{shown}:{block.span.line}"
            if isinstance(decl, cm.Message):
                out.catalogue.messages[decl.id] = decl
            elif isinstance(decl, cm.Words):
                out.catalogue.words[decl.id] = decl
            elif isinstance(decl, cm.Regression):
                out.catalogue.regressions[decl.id] = decl
        out.diagnostics.extend(lowerer.diagnostics)
    return out


def load_default() -> cm.Catalogue:
    return load_catalogue().catalogue


_last_fingerprint: tuple[tuple[tuple[object, ...], ...], str] | None = None
_held: str | None = None  # set by `held_fingerprint`
RACY_NS = 2_000_000_000


def _stat_signature(roots: list[Path]) -> tuple[tuple[object, ...], ...]:
    """Path, size, mtime and inode of every `.kb` file under the roots (os.scandir: a tenth
    of the cost of the Path walk in `catalogue_files`)."""
    out: list[tuple[object, ...]] = []
    stack = [str(r) for r in reversed(roots)]
    while stack:
        top = stack.pop()
        try:
            if not os.path.isdir(top) or os.path.islink(top):
                st = os.lstat(top)
                out.append((top, st.st_size, st.st_mtime_ns, st.st_ino))
                continue
            with os.scandir(top) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            out.append((top, None))
            continue
        out.append((top,))
        for entry in reversed(entries):
            if entry.is_symlink():
                continue
            if entry.is_dir():
                if not entry.name.startswith("."):
                    stack.append(entry.path)
            elif entry.name.endswith(".kb"):
                st = entry.stat()
                out.append((entry.path, st.st_size, st.st_mtime_ns, st.st_ino))
    return tuple(out)


def default_fingerprint() -> str:
    """`fingerprint` of the default catalogue, re-hashed only when a `.kb` file under its
    roots was added, removed or changed size, mtime or inode: the compile cache, the drafts
    check and the message index each ask for it once per case (8 ms a time otherwise)."""
    global _last_fingerprint
    if _held is not None:
        return _held
    roots = default_roots()
    signature = _stat_signature(roots)
    if _last_fingerprint is not None and _last_fingerprint[0] == signature:
        return _last_fingerprint[1]
    newest = max((s[2] for s in signature if len(s) == 4 and isinstance(s[2], int)), default=0)
    # a file written in the last 2 s may be rewritten within the clock's granularity with
    # the same size (git's "racily clean" case): such a signature is not trusted
    racy = time.time_ns() - newest < RACY_NS
    found = None if racy else remembered.recall(signature)  # an earlier process's answer
    if found is None:
        found = fingerprint(catalogue_files(roots))
        if not racy:
            remembered.remember(signature, found)
    _last_fingerprint = None if racy else (signature, found)
    return found


@contextmanager
def held_fingerprint() -> Iterator[str]:
    """Within this block the catalogue on disk is taken as unchanged: its fingerprint is
    computed once. One command's run (a `kb diagnose`) asks for it once per line the reader
    weighs and once per case, a walk over every catalogue file each time (3 ms)."""
    global _held
    before = _held
    _held = found = default_fingerprint()
    try:
        yield found
    finally:
        _held = before
