"""Copying handed-over evidence (folder, file or archive) into a fixture folder, redacted.

Files are listed and opened through `kb.evidence.inputs` and `kb.evidence.archives`, which
already refuse symlink loops, FIFOs, zip-slip members and decompression bombs. Binary files
are left out: a fixture holds the text a user would paste.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kb.evidence.archives import iter_archive
from kb.evidence.bounded import InflateBudget
from kb.evidence.facts import SkippedFile
from kb.evidence.failures import READ_ERRORS, skip_reason
from kb.evidence.inputs import InputFile, is_archive, logical_name, walk
from kb.evidence.limits import Limits
from kb.redact.fixture import FixtureRedactor

MAX_FILE_BYTES = 20 * 1024 * 1024


@dataclass
class CopyReport:
    written: dict[str, str] = field(default_factory=dict)  # relative path -> redacted text
    skipped: list[str] = field(default_factory=list)
    redactor: FixtureRedactor = field(default_factory=FixtureRedactor)

    @property
    def size(self) -> int:
        return sum(len(t.encode("utf-8", "surrogateescape")) for t in self.written.values())


def _members(source: Path, skipped: list[SkippedFile]) -> Iterator[tuple[str, bytes]]:
    budget = InflateBudget(Limits())
    for task in walk(source, skipped):
        if is_archive(task.display):
            task.budget = budget
            stem = task.display.rsplit("/", 1)[-1].split(".", 1)[0]
            prefix = "" if source.is_file() else f"{stem}/"
            for member in iter_archive(task, budget, skipped):
                inner = member.display.split("!/", 1)[-1]
                data = _read(member, skipped)
                if data is not None:
                    yield prefix + _logical(inner), data
        else:
            data = _read(task, skipped)
            if data is not None:
                yield _logical(task.display), data


def _logical(display: str) -> str:
    parts = display.strip("/").split("/")
    parts[-1] = logical_name(parts[-1])
    return "/".join(p for p in parts if p not in ("", ".", ".."))


def _read(task: InputFile, skipped: list[SkippedFile]) -> bytes | None:
    try:
        stream = task.open()
        try:
            data = stream.read(MAX_FILE_BYTES + 1)
        finally:
            stream.close()
    except READ_ERRORS as exc:  # a bomb or a corrupt member is skipped, as `kb evidence` does
        skipped.append(SkippedFile(path=task.display, reason=skip_reason(exc)))
        return None
    if len(data) > MAX_FILE_BYTES:
        skipped.append(SkippedFile(path=task.display, reason="larger than 20 MB: trim it"))
        return None
    if b"\x00" in data[:8192]:
        skipped.append(SkippedFile(path=task.display, reason="binary"))
        return None
    return data


def copy_redacted(source: Path, dest: Path) -> CopyReport:
    """Read every text file of `source`, learn host names from all, then write them redacted."""
    report = CopyReport()
    skipped: list[SkippedFile] = []
    texts = {
        rel: data.decode("utf-8", "surrogateescape") for rel, data in _members(source, skipped)
    }
    report.skipped = [f"{s.path}: {s.reason}" for s in skipped]
    for text in texts.values():
        report.redactor.learn_hosts(text)
    for rel, text in texts.items():
        target_rel = report.redactor.redact_path(rel) or "evidence.log"
        clean = report.redactor.redact(text)
        target = dest / target_rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(clean.encode("utf-8", "surrogateescape"))
        report.written[target_rel] = clean
    return report
