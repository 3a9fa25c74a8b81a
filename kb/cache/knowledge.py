"""The loaded knowledge base of a set of case folders, kept whole between runs.

A warm `kb diagnose` otherwise validates every compiled case's JSON and every draft check
with pydantic (about 0.2 s for 40 cases) to rebuild the same objects. The snapshot is a
pickle of the finished `KnowledgeBase` (drafts already left out), keyed by everything the
answer depends on: the compiler version, the catalogue's fingerprint, every case file's
path and bytes, and the size and mtime of every source file of `dsl/` and `kb/` (so an
edit to the language or the runtime rebuilds it). It sits beside the per-case compile
cache (`dsl.compiler.cache_dir()`), is written whole (temporary file renamed over it), and
is read only when its header carries the same key and a hash of the body: a truncated,
corrupt or foreign file is ignored and rebuilt, never unpickled.

Every pydantic object is stored as a plain record (`kb.cache.records`): same class name,
attributes and values, so loading the snapshot imports neither pydantic nor the model
modules (they were most of a warm run's CPU); they are needed only when a case or the
catalogue changed. Source positions (`dsl.span.Span`, half the snapshot's objects) are
stored as one shared empty record: nothing that loads the snapshot (`kb diagnose`,
`kb test`, `kb eval`, ...) reads them, only `kb check`, the lint rules and the site, which
parse the cases themselves; unpickling them was a third of a warm load.
"""

from __future__ import annotations

import gc
import hashlib
import io
import os
import pickle
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dsl.cache_files import sealed_body
from kb.cache import records
from kb.cache.files import prune, write_whole

if TYPE_CHECKING:
    from dsl.compiler import KnowledgeBase

MAGIC = b"kb-knowledge-snapshot/3\n"  # 2: source positions left out; 3: plain records
KEEP = 8  # snapshots kept (~2 MB each; one per case-folder set and version); the oldest go
PREFIX = "knowledge-"


def _code_signature() -> bytes:
    """Size and mtime of every source file of the language and the runtime."""
    import dsl
    import kb

    h = hashlib.sha256()
    for package in (dsl, kb):
        top = Path(package.__file__ or "").resolve().parent
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith((".py", ".lark")):
                    path = os.path.join(dirpath, name)
                    st = os.stat(path)
                    h.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.digest()


def snapshot_key(roots: Sequence[Path | str]) -> str | None:
    """The key for these case roots, or None when a case file cannot be read (then the
    ordinary loader reports it)."""
    from dsl.cache_place import COMPILER_VERSION
    from dsl.casefiles import find_case_files
    from dsl.catalogue import registry

    files, problems = find_case_files(roots)
    h = hashlib.sha256(MAGIC)
    h.update(COMPILER_VERSION.encode() + b"\0")
    h.update(registry.fingerprint().encode() + b"\0")
    h.update(_code_signature())
    h.update(repr([str(r) for r in roots]).encode() + b"\0")
    h.update(repr([(p.path, p.message) for p in problems]).encode() + b"\0")
    h.update(os.getcwd().encode() + b"\0")  # diagnostics name files relative to it
    for path in files:
        try:
            data = path.read_bytes()
        except OSError:
            return None
        h.update(f"{path}\0{len(data)}\0".encode())  # resolved by find_case_files
        h.update(hashlib.sha256(data).digest())
    return h.hexdigest()


def _path(key: str) -> Path:
    from dsl.cache_place import cache_dir

    return cache_dir() / f"{PREFIX}{key[:32]}.pickle"


def load(key: str) -> KnowledgeBase | None:
    """The snapshot stored under `key`, or None (missing, foreign, corrupt, or stale): the
    knowledge base as records, read like the model (`kb.cache.records`)."""
    try:
        blob = _path(key).read_bytes()
    except OSError:
        return None
    body = sealed_body(blob, MAGIC + key.encode() + b"\n")
    if body is None:
        return None
    enabled = gc.isenabled()
    gc.disable()  # ~25,000 new containers and no garbage: the collections it set off found
    try:  # nothing and were a quarter of the unpickling
        found: Any = pickle.loads(body)
    except Exception:  # a class renamed or moved since: rebuild
        return None
    finally:
        if enabled:
            gc.enable()
    if isinstance(found, records.Record) and found._model == KNOWLEDGE_BASE:
        return found  # type: ignore[return-value]  # read like the model: see kb.cache.records
    return None


KNOWLEDGE_BASE = "dsl.compiler.KnowledgeBase"


class _RecordPickler(pickle.Pickler):
    """Pickles a record class as the call that makes it again (`records.record_class`)."""

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, type) and issubclass(obj, records.Record):
            return (records.record_class, (obj._model, obj._frozen))
        return NotImplemented


def dumps(kb: KnowledgeBase) -> bytes:
    """The snapshot's body: `kb` as records (`kb.cache.records.to_records`), pickled."""
    out = io.BytesIO()
    _RecordPickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(records.to_records(kb))
    return out.getvalue()


def store(key: str, kb: KnowledgeBase) -> None:
    """Write the snapshot whole, or not at all (a read-only cache only costs speed)."""
    target = _path(key)
    # a source text is only read to show a diagnostic's caret: keep those (a quarter of the
    # snapshot otherwise, and a warm load from the per-case cache has none either)
    shown = {d.path for d in kb.diagnostics}
    slim = kb.model_copy(update={"sources": {k: v for k, v in kb.sources.items() if k in shown}})
    try:
        body = dumps(slim)
    except Exception:
        return  # something in it does not pickle: no snapshot, the ordinary path still works
    data = MAGIC + key.encode() + b"\n" + hashlib.sha256(body).hexdigest().encode() + b"\n" + body
    if write_whole(target, data):
        prune(target.parent, f"{PREFIX}*.pickle", KEEP)
