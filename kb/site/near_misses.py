"""The real near misses stored under a case, read (bounded) for the site's look-alike links:
which case each near miss really is, and its text, so a "Not this case if…" line can link it."""

from __future__ import annotations

import re
from pathlib import Path

from dsl import model as m

MAX_FIXTURE_FILES = 200
MAX_FIXTURE_BYTES = 2 * 1024 * 1024


def _fixture_text(folder: Path) -> str:
    """The text of a fixture folder, bounded, for a display-only search."""
    parts: list[str] = []
    total = 0
    try:
        files = sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    except OSError:
        return ""
    for path in files[:MAX_FIXTURE_FILES]:
        if path.name == "incident.yaml":
            continue
        try:
            data = path.read_bytes()[:MAX_FIXTURE_BYTES]
        except OSError:
            continue
        if b"\0" in data[:4096]:
            continue
        parts.append(data.decode("utf-8", "replace"))
        total += len(data)
        if total > MAX_FIXTURE_BYTES * 4:
            break
    return "\n".join(parts)


_CASE_LINE = re.compile(r"^case:\s*([a-z0-9][a-z0-9-]*)\s*$", re.M)


def near_miss_texts(case: m.Case) -> list[tuple[str, str]]:
    """(the case a near-miss fixture really is, its text) for real near misses."""
    if not case.folder:
        return []
    root = Path(case.folder) / "fixtures" / "negative"
    out = []
    try:
        folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        return []
    for folder in folders[:MAX_FIXTURE_FILES]:
        try:
            meta = (folder / "incident.yaml").read_text("utf-8", "replace")[:10000]
        except OSError:
            continue
        found = _CASE_LINE.search(meta)
        if found and found.group(1) not in ("none", case.id):
            out.append((found.group(1), _fixture_text(folder)))
    return out
