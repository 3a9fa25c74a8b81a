"""An issue body handed over alone (`kb diagnose -e issue.md`, `-e issue.json`, `-e -`) becomes
the files a folder would have held: the reporter's words as notes, each pasted block as a file
of its own kind (a log, `pip list`, `accelerate env`, a script), read by the same readers.

Each part is an in-memory file holding the body with every other line blanked, so a line is
cited by its number in the body: `issue.md:3` is prose, `issue.md!/rank0.log:12` is line 12
of the body, inside the block labelled `rank0.log`. A folder's `.md` files are not split:
they are read as notes, their fenced blocks as pasted output in place (`sources/notes.py`).
"""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from kb.evidence.bounded import ByteStream
from kb.evidence.facts import SkippedFile
from kb.evidence.inputs import InputFile, is_archive
from kb.evidence.lazy_pattern import lazy
from kb.evidence.limits import Limits
from kb.evidence.registry import classify
from kb.evidence.sources.notes import looks_like_python

if TYPE_CHECKING:  # imported when a single file is read: a folder never needs them
    from kb.evidence.github_issue import Issue
    from kb.evidence.issue_body import Block, SplitBody

MAX_PARTS = 64  # blocks read as files of their own; the rest are read together as one log
MAX_BODY = 4 << 20  # a larger file is no issue body (GitHub's limit is 65,536 characters)
_MARKDOWN_NAMES = (".md", ".markdown")
_PYTHON = ("py", "python", "python3")
_TRACEBACK = lazy(r"^\s*(?:\[[\w]+\]:\s*)?Traceback \(most recent call last\)", re.M)
_NEVER_FOR_BLOCKS = ("notes", "flight-recorder")  # pasted output is never the user's words


def issue_tasks(
    tasks: list[InputFile], limits: Limits, skipped: list[SkippedFile]
) -> list[InputFile]:
    """The parts of an issue body when `tasks` is one, else `tasks` unchanged."""
    if len(tasks) != 1:
        return tasks
    task = tasks[0]
    if task.archive or task.gz or is_archive(task.display) or task.size > MAX_BODY:
        return tasks
    raw = _read(task)
    if raw is None or b"\x00" in raw[: limits.head_bytes]:
        return tasks  # unreadable or binary: the reader says so when it reads the file
    from kb.evidence.github_issue import load_issue
    from kb.evidence.issue_body import looks_like_markdown

    issue = load_issue(raw)
    if issue is not None:
        return list(_issue_parts(task.display, issue, limits, skipped))
    text = raw.decode("utf-8", "replace")
    if not (task.display.lower().endswith(_MARKDOWN_NAMES) or looks_like_markdown(text)):
        return tasks
    return list(_body_parts(task.display, task.display, "", text, limits, skipped))


def _read(task: InputFile) -> bytes | None:
    try:
        stream = task.open()
    except OSError:
        return None
    try:
        return stream.read(MAX_BODY + 1)
    except OSError:
        return None
    finally:
        stream.close()


def _issue_parts(
    display: str, issue: Issue, limits: Limits, skipped: list[SkippedFile]
) -> Iterator[InputFile]:
    if issue.title.strip():
        yield _part(f"{display}!/title.md", "notes", issue.title.replace("\n", " ") + "\n")
    for t in issue.texts:
        stem = t.name.rsplit(".", 1)[0]
        yield from _body_parts(f"{display}!/{t.name}", display, f"{stem}/", t.text, limits, skipped)
    others = issue.comments_seen - (len(issue.texts) - 1)
    if others > 0:
        skipped.append(
            SkippedFile(
                path=display,
                reason=f"{others} comment(s) not read: not by the issue's author, or kb's own",
            )
        )


def _body_parts(
    prose_name: str,
    display: str,
    prefix: str,
    text: str,
    limits: Limits,
    skipped: list[SkippedFile],
) -> Iterator[InputFile]:
    from kb.evidence.issue_body import split_body

    split = split_body(text)
    if split.prose:
        yield _part(prose_name, "notes", split.prose_text())
    names: set[str] = set()
    for block in split.blocks[:MAX_PARTS]:
        kind = block_kind(block, limits)
        name = _unique(block.label or f"lines-{block.first}-{block.last}.txt", block, names)
        padded = "\n" * (block.first - 1) + block.text + "\n"
        yield _part(f"{display}!/{prefix}{name}", kind, padded)
    rest = split.blocks[MAX_PARTS:]
    if rest:  # one log for the rest: each block's padding would grow with their number
        lines = [""] * rest[-1].last
        for block in rest:
            lines[block.first - 1 : block.last] = block.lines
        first, last = rest[0].first, rest[-1].last
        yield _part(
            f"{display}!/{prefix}lines-{first}-{last}.txt", "text-log", "\n".join(lines) + "\n"
        )
    _note_references(prose_name, split, skipped)


def block_kind(block: Block, limits: Limits) -> str:
    """What a pasted block is, by its content, nudged by its label (as a file by its name).

    A `python` fence holding a traceback is a log; a label naming a `.py` file over a log is
    not a script."""
    head = block.text[: limits.head_bytes]
    if block.language in _PYTHON and not _TRACEBACK.search(head):
        return "python-source"
    kind = classify(head, block.label or "paste.txt")
    if kind == "python-source" and (_TRACEBACK.search(head) or not looks_like_python(block.lines)):
        kind = classify(head, "paste.txt")
    return "text-log" if kind in _NEVER_FOR_BLOCKS else kind


def _unique(name: str, block: Block, taken: set[str]) -> str:
    if name in taken:
        stem, dot, ext = name.rpartition(".")
        name = f"{stem}-{block.first}.{ext}" if dot else f"{name}-{block.first}"
    taken.add(name)
    return name


def _part(display: str, kind: str, text: str) -> InputFile:
    data = text.encode("utf-8")
    opener = functools.partial(_stream, data)  # picklable: parts may go to worker processes
    return InputFile(display=display, size=len(data), opener=opener, kind=kind)


def _stream(data: bytes) -> ByteStream:
    return io.BytesIO(data)


def _note_references(where: str, split: SplitBody, skipped: list[SkippedFile]) -> None:
    """Images and links are named in the report (a screenshot's text is not evidence kb can
    read), never fetched."""
    for kind, what in (("image", "not read: paste the text it shows"), ("link", "not followed")):
        lines = sorted({r.line for r in split.references if r.kind == kind})
        if lines:
            shown = ", ".join(map(str, lines[:10])) + (", …" if len(lines) > 10 else "")
            skipped.append(SkippedFile(path=where, reason=f"{kind}(s) on line(s) {shown}: {what}"))
