"""Free text the user wrote (README, notes, issue.md, description.txt): kept line by line in
Facts.notes so cases can match the symptom words ("hangs", "stuck at prepare", "卡住")."""

from __future__ import annotations

import re

from kb.evidence.catalogued import is_catalogued_message
from kb.evidence.context import FileContext
from kb.evidence.facts import Device, PackageCapture
from kb.evidence.lazy_pattern import lazy
from kb.evidence.ranks import grep_prefix
from kb.evidence.sources.base import WholeFileSource
from kb.evidence.sources.command import command_facts
from kb.evidence.sources.python_source import PythonSource
from kb.evidence.sources.reported import device_mentions, versions_in

# a word that names a person's prose anywhere in the name: issue.md, user_report.txt,
# hardware_note.txt, bug-description.txt, 问题描述.txt
_NAMES = lazy(
    r"(^|[-_. ])(readme|notes?|issue|description|problem|symptoms?|report|summary|question"
    r"|context|details|story|what[-_]happened)([-_. ]|s?$)|问题|描述|说明|现象",
    re.I,
)
SYMPTOMS = lazy(
    r"\bhang(s|ing)?\b|\bstuck\b|\bfreez(e|es|ing)\b|\bdeadlock|\btimes? out\b|\btimeout\b|卡住|卡死|挂起|超时|报错",
    re.IGNORECASE,
)
_MAX_NOTES = 500


# extensions only a program's redirected output gets
_PROGRAM_OUTPUT = frozenset({"log", "out", "err", "stderr", "stdout"})


class NotesSource(WholeFileSource):
    name = "notes"
    description = "the user's own description of the problem"

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        stem = name.rsplit(".", 1)
        ext = stem[1].lower() if len(stem) == 2 else ""
        if tool_output(head, catalogue=ext not in ("md", "rst")):
            return 0.0  # `error.txt` holding `RuntimeError: …` is a log, whatever its name
        if ext in _PROGRAM_OUTPUT:
            return 0.0  # `train.log` was written by a program (a redirect, a tee), never typed
        if ext not in ("md", "rst") and not _NAMES.search(stem[0]) and opens_with_message(head):
            return 0.0  # a program's help text (Open MPI's, NCCL's) is sentences, yet output
        if ext in ("md", "rst"):
            # markup is written by people: a log pasted into it sits in a fenced block, read as
            # log lines in place, so a one-line note that names `torchrun` stays a note
            return 0.95 if _NAMES.search(stem[0]) else 0.6
        if _NAMES.search(name.rsplit(".", 1)[0]) and ext in ("", "txt"):
            # named as a note and written as sentences: a note, even when a sentence names
            # torchrun or NCCL (which would make a one-line file look like their log)
            return 0.95 if mostly_prose(head) else 0.85
        if ext in ("", "txt") and mostly_prose(head):
            # sentences beat a log's sniff: prose that names torchrun or NCCL is no log
            return 0.92 if _sentences(head) else 0.5
        if SYMPTOMS.search(head) and len(head) < 4096 and not re.search(r"\d{2}:\d{2}:\d{2}", head):
            return 0.3
        return 0.0

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self._captures: list[PackageCapture] = []

    def parse(self, text: str) -> None:
        notes = self.ctx.facts.notes
        lines = text.splitlines()
        for no, raw in enumerate(lines, 1):
            if raw.strip() and len(notes) < _MAX_NOTES:
                line = self.ctx.line(no, raw)
                notes.append(self.ctx.evidence(line, self.name))
        # a command line the user pasted (`NCCL_P2P_DISABLE=1 torchrun …`, `export …`) is the
        # command they ran: its settings and world size are facts, as in a command file
        command_facts(self.ctx, [(no, raw.strip().strip("`")) for no, raw in enumerate(lines, 1)])
        blocks = fenced_blocks(lines)
        in_block = {no for first, last, _ in blocks for no in range(first, last + 1)}
        self._reported_facts([(no, raw) for no, raw in enumerate(lines, 1) if no not in in_block])
        for first, last, language in blocks:
            self.ctx.facts.fenced.append((self.ctx.display, first, last))
            block = lines[first - 1 : last]
            if language in ("py", "python", "python3") or looks_like_python(block):
                # analyse the pasted code where it stands: other lines blanked, numbers kept
                masked = ["" for _ in lines]
                masked[first - 1 : last] = block
                PythonSource(self.ctx).parse("\n".join(masked))
            else:  # a pasted log: log queries read these lines like any log file
                self.ctx.facts.pasted.append((self.ctx.display, first, last))

    def _reported_facts(self, prose: list[tuple[int, str]]) -> None:
        """Devices and versions the user names in words become facts, marked as reported."""
        facts = self.ctx.facts
        seen_models: set[str] = set()
        for no, raw in prose[:_MAX_NOTES]:
            for count, kind, model in device_mentions(raw):
                if model in seen_models or len(seen_models) >= 4:
                    continue
                seen_models.add(model)
                for index in range(count):
                    facts.devices.append(
                        Device(
                            index=index,
                            kind=kind,
                            model=model,
                            file=self.ctx.display,
                            line=no,
                            reported=True,
                        )
                    )
            # versions go to a package list of their own (tool "notes"), never to the facts
            # a tool fills (nccl_version…): a capture beats words, and words are no conflict
            for name, version in versions_in(raw):
                cap = next((c for c in self._captures if name not in c.packages), None)
                if cap is None and len(self._captures) < 4:
                    cap = PackageCapture(file=self.ctx.display, tool="notes")
                    self._captures.append(cap)
                    facts.package_captures.append(cap)
                if cap is not None:
                    cap.packages[name] = version
                    cap.lines[name] = no


_WORD = lazy(r"[A-Za-z\u4e00-\u9fff][A-Za-z'\u4e00-\u9fff-]*")
_CJK = lazy(r"[\u4e00-\u9fff]")
_LOG_MARK = lazy(
    r"\d{2}:\d{2}:\d{2}|^\s*(\[|File \"|Traceback|\w+Error\b)|\bNCCL (INFO|WARN)\b"
    r"|^\S+:\d+:\d+ \[\d+\]|^[\w.-]+==\d|^\s*#|^\s{4}|^[\w./-]+\.(?:log|txt|out|err):"
)


def mostly_prose(head: str) -> bool:
    """Sentences, not tool output: most lines are runs of words, none looks like a log line.

    >>> mostly_prose("Two nodes of 8 A100 each.\\nThe job stops at init and never trains.\\n")
    True
    >>> mostly_prose("[rank1]: Traceback (most recent call last):\\n  File \\"x.py\\", line 3\\n")
    False
    """
    lines = [ln for ln in head.splitlines()[:40] if ln.strip()]
    if not lines or len(head) > 16384:
        return False
    prose = sum(
        1
        for ln in lines
        if not _LOG_MARK.search(ln)
        and (len(_WORD.findall(ln)) >= 4 or len(_CJK.findall(ln)) >= 8)
        and sum(len(w) for w in _WORD.findall(ln)) >= 0.6 * len(ln.strip())
        and not is_catalogued_message(ln)  # a message that reads like a sentence is output
    )
    return prose >= 0.8 * len(lines)


# a line only a program prints: NCCL's, an exception, a traceback or c10 frame, a launcher
# prefix, glog/c10 severity, libstdc++'s terminate
_TOOL_LINE = lazy(
    r"^\s*(?:\[[A-Za-z_]+\d+\]:\s*)*(?:[\w.]*(?:Error|Exception|Warning)\b:?|File \"|Traceback "
    r"|frame #\d+|\[?[EWIF]\d{4} |\[[EWIF] [\w.]+:\d+\]|terminate called|what\(\):|\^+\s*$"
    r"|\S+:\d+:\d+ \[\d+\] NCCL |NCCL (?:INFO|WARN)\b"
    r"|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):[\w.]+:)"  # Python logging's default format
    r"|^\s{4}\S"  # the source line a traceback quotes
)
_MAX_TOOL_LINES = 12


def tool_output(head: str, catalogue: bool = True) -> bool:
    """A small file every line of which a program printed (an error pasted into `error.txt`):
    a line of a shape only programs print, or (with `catalogue`) a catalogued message.

    >>> tool_output("torch.distributed.DistBackendError: NCCL error in: x.cpp:1970\\n")
    True
    >>> tool_output("RuntimeError: boom\\nI think it is the network.\\n")
    False

    An excerpt the thread showed in italics is still the program's:

    >>> tool_output('_File "r.py", line 172, in h\\n    store = TCPStore(a)\\nRuntimeError: Address already in use_\\n')
    True
    """
    lines = [_unemphasised(ln) for ln in head.splitlines() if ln.strip()]
    if not lines or len(lines) > _MAX_TOOL_LINES:
        return False
    return all(
        _TOOL_LINE.search(_ungrepped(ln)) or (catalogue and is_catalogued_message(_ungrepped(ln)))
        for ln in lines
    )


_RULE = lazy(r"^[\s\-=*#_~]*$")  # a separator line a help text is framed with


def opens_with_message(head: str) -> bool:
    """The file's first lines (separators aside) are a catalogued message: a program printed
    it, even when what follows reads as sentences (Open MPI's help text, a launcher's banner).

    >>> opens_with_message("----\\nThe application appears to have been direct launched using \\"srun\\",\\nbut more.\\n")
    True
    >>> opens_with_message("The job hangs after two hours.\\nThe application appears to have been direct launched using \\"srun\\",\\n")
    False
    """
    lines = [_unemphasised(ln) for ln in head.splitlines()[:8] if not _RULE.match(ln)]
    return bool(lines) and is_catalogued_message(_ungrepped(lines[0]))


_EMPHASIS_OPEN = lazy(r"^(\s*)(?:\*\*|\*|_)(?=[A-Z\[])")
_EMPHASIS_CLOSE = lazy(r"(?<=[^\s*_])(?:\*\*|\*|_)\s*$")


def _unemphasised(line: str) -> str:
    """The line without the markdown emphasis a paste was wrapped in (`_File "…"`, `…in use_`):
    the thread rendered it in italics, the program printed it without.

    >>> _unemphasised('_File "x.py", line 3, in f')
    'File "x.py", line 3, in f'
    >>> _unemphasised("RuntimeError: Address already in use_")
    'RuntimeError: Address already in use'
    >>> _unemphasised("    __init__.py")
    '    __init__.py'
    """
    return _EMPHASIS_CLOSE.sub("", _EMPHASIS_OPEN.sub(r"\1", line))


def _ungrepped(line: str) -> str:
    """The line without a `grep -H` prefix (`logs/rank3.log:12:`)."""
    grepped = grep_prefix(line)
    return grepped[1] if grepped else line


_LOWER_WORD = lazy(r"\b[a-z]{2,}\b")
_ASSIGNMENT = lazy(r"^\s*(?:export\s+)?[A-Za-z_]\w*=")


def _sentences(head: str) -> bool:
    """Every line is a sentence: four lower-case words at least (or Chinese), which an
    `export`/`declare -x` listing or a log line with a few words is not."""
    lines = [ln for ln in head.splitlines()[:40] if ln.strip()]
    return all(
        (len(_LOWER_WORD.findall(ln)) >= 4 and len(ln.split()) >= 4 and not _ASSIGNMENT.match(ln))
        or len(_CJK.findall(ln)) >= 8
        for ln in lines
    )


FENCE = lazy(r"^\s*(```+|~~~+)\s*([\w+-]*)")


def fenced_blocks(lines: list[str]) -> list[tuple[int, int, str]]:
    """(first, last, language) of each fenced block's content, 1-based and inclusive.

    >>> fenced_blocks(["words", "```python", "x = 1", "```", "```", "log"])
    [(3, 3, 'python'), (6, 6, '')]
    """
    out: list[tuple[int, int, str]] = []
    start: int | None = None
    language = ""
    for no, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if m and start is None:
            start, language = no + 1, m.group(2).lower()
        elif m and line.strip().strip("`~") == "":
            if start is not None and no - 1 >= start:
                out.append((start, no - 1, language))
            start = None
    if start is not None and len(lines) >= start:
        out.append((start, len(lines), language))  # an unclosed fence runs to the end
    return out


def looks_like_python(block: list[str]) -> bool:
    code = "\n".join(block)
    return bool(
        re.search(r"^\s*(def |import |from \w+ import |if .*:\s*$)|accelerator\.", code, re.M)
    )
