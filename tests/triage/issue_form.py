"""A stored real incident rebuilt into the form its reporter would have posted it in: the
notes as prose, then each machine file under its name as a heading, in a fenced block.

Only the layout is ours; every line inside is the stored incident's own."""

from __future__ import annotations

from pathlib import Path

from kb.evidence.inputs import INCIDENT_FILE

NOTES = "notes.md"
_LANGUAGE = {".py": "python", ".sh": "bash", ".yaml": "yaml", ".yml": "yaml", ".json": "json"}


def _fence(text: str) -> str:
    """A fence longer than any run of backticks the content holds."""
    longest = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def machine_files(folder: Path) -> list[Path]:
    """The files a reporter would paste as blocks: everything but the notes and metadata."""
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and p.name not in (NOTES, INCIDENT_FILE) and "__pycache__" not in p.parts
    )


def issue_body(folder: Path) -> str:
    """The incident as one markdown issue body."""
    parts: list[str] = []
    notes = folder / NOTES
    if notes.is_file():
        parts.append(notes.read_text(encoding="utf-8", errors="replace").rstrip("\n"))
    for path in machine_files(folder):
        text = path.read_text(encoding="utf-8", errors="replace").rstrip("\n")
        fence = _fence(text)
        language = _LANGUAGE.get(path.suffix.lower(), "")
        name = path.relative_to(folder).as_posix()
        parts.append(f"### {name}\n\n{fence}{language}\n{text}\n{fence}")
    return "\n\n".join(parts) + "\n"
