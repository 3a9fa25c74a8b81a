"""An issue body as posted, split into what the reporter wrote and what their tools printed.

A GitHub issue mixes a person's words with pasted machine output, and the two must be read
differently: words are notes (symptoms, what they tried), output is evidence a program
printed. This module only splits (no reading): every line of the body is either

- prose: headings, paragraphs, lists, tables, a `<summary>`, a quote written as sentences;
- part of one machine block: a fenced block (```/~~~), an indented code block, the body of a
  `<details>` section, a run of `>` quoted lines that a program printed;
- dropped: fences, HTML tags and comments (an issue template's instructions), blank lines.

A block keeps its lines' numbers in the body, so whatever reads it cites the body's lines.
The line just above a block names it when it is a file or tool name (`### rank0.log`,
`pip list:`), as a reporter labels what they paste; images and links are noted, not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kb.evidence.lazy_pattern import lazy
from kb.evidence.sources.notes import mostly_prose

MAX_QUOTE_DEPTH = 4  # `> > > >`: deeper quoting is read as prose

_FENCE_OPEN = lazy(r"^( {0,3}|\s*)(`{3,}|~{3,})\s*([^`\s]*)")
_QUOTE = lazy(r"^ {0,3}> ?")
_LIST_ITEM = lazy(r"^\s*(?:[-*+]|\d{1,9}[.)])\s")
_INDENTED = lazy(r"^(?: {4}|\t)")
_DETAILS_OPEN = lazy(r"<details\b[^>]*>", re.I)
_DETAILS_CLOSE = lazy(r"</details\s*>", re.I)
_SUMMARY = lazy(r"<summary\b[^>]*>(.*?)</summary\s*>", re.I)
_TAG = lazy(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>")
_COMMENT_OPEN, _COMMENT_CLOSE = "<!--", "-->"
_IMAGE = lazy(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)|<img\b[^>]*\bsrc=[\"']?([^\"'\s>]+)", re.I)
_LINK = lazy(r"(?<!!)\[[^\]]*\]\(\s*<?([^)\s>]+)|(?<![(<\"'=])\bhttps?://[^\s)>\]]+")
_FILE_NAME = lazy(
    r"[\w.-]*[A-Za-z][\w-]*\.(?:log|txt|out|err|stdout|stderr|py|sh|ya?ml|json|cfg|conf|ini|toml)\b",
    re.I,
)
# a tool whose output a reporter pastes under its name: the name its output is saved as
_TOOLS = (
    (lazy(r"\baccelerate[ -]env\b", re.I), "accelerate-env.txt"),
    (lazy(r"\bcollect_env\b|\bcollect-env\b", re.I), "collect-env.txt"),
    (lazy(r"\bpip[ -]list\b", re.I), "pip-list.txt"),
    (lazy(r"\bpip[ -]freeze\b", re.I), "pip-freeze.txt"),
    (lazy(r"\bconda[ -]list\b", re.I), "conda-list.txt"),
    (lazy(r"\bnvidia-smi[ -]topo\b|\btopo -m\b", re.I), "nvidia-topo.txt"),
    (lazy(r"\bnvidia-smi\b", re.I), "nvidia-smi.txt"),
    (lazy(r"\bnpu-smi\b", re.I), "npu-smi.txt"),
)
MAX_LABEL = 80  # a longer line above a block is a sentence, not the block's name


@dataclass
class Block:
    """Machine output: `lines` are the body's lines `first`..`last` (1-based), stripped of
    the quote marks or indentation that carried them."""

    first: int
    lines: list[str]
    origin: str  # fence, indented, details, quote
    language: str = ""  # a fence's info string, lower case
    label: str = ""  # a file or tool name the line above gives it

    @property
    def last(self) -> int:
        return self.first + len(self.lines) - 1

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass
class Reference:
    """An image or a link in the body: noted where it is, never fetched."""

    line: int
    kind: str  # image or link
    url: str


@dataclass
class SplitBody:
    prose: dict[int, str] = field(default_factory=dict)  # body line -> the words on it
    blocks: list[Block] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    line_count: int = 0
    fences: dict[int, str] = field(default_factory=dict)  # body line -> a fence line, unquoted

    def prose_text(self) -> str:
        """The body with every line that is not prose blanked (numbering kept), but for the
        fence lines: the notes reader then knows the blank lines between as pasted output,
        which `kb export` ships as such (the block itself is read as a file of its own)."""
        shown = {**self.fences, **self.prose}
        return "\n".join(shown.get(no, "") for no in range(1, self.line_count + 1)) + "\n"


def looks_like_markdown(text: str) -> bool:
    """Whether a text that is not named `.md` is an issue body: it fences or folds what it
    pastes. A log has neither, so `kb diagnose -` on a plain log reads it as before.

    >>> looks_like_markdown("It hangs.\\n```\\nNCCL WARN x\\n```\\n"), looks_like_markdown("a\\nb\\n")
    (True, False)
    """
    return any(_FENCE_OPEN.match(line) or _DETAILS_OPEN.search(line) for line in text.splitlines())


def split_body(text: str) -> SplitBody:
    """Splits a markdown issue body (see the module's docstring).

    >>> s = split_body("It hangs.\\n\\n### rank0.log\\n```\\nNCCL WARN boom\\n```\\n")
    >>> sorted(s.prose), [(b.first, b.last, b.label) for b in s.blocks]
    ([1], [(5, 5, 'rank0.log')])
    """
    lines = text.splitlines()
    out = SplitBody(line_count=len(lines))
    _Splitter(lines, 1, out, 0).run()
    for no, words in out.prose.items():
        for m in _IMAGE.finditer(words):
            out.references.append(Reference(no, "image", m.group(1) or m.group(2)))
        for m in _LINK.finditer(_IMAGE.sub("", words)):
            out.references.append(Reference(no, "link", m.group(1) or m.group(0)))
    out.blocks.sort(key=lambda b: b.first)
    return out


class _Splitter:
    """One pass over `lines` (body line `offset` is lines[0]); quotes recurse, bounded."""

    def __init__(self, lines: list[str], offset: int, out: SplitBody, depth: int) -> None:
        self.lines, self.offset, self.out, self.depth = lines, offset, out, depth
        self.details = 0  # <details> sections open here
        self.run_start: int | None = None  # a details body's unfenced lines, being gathered
        self.held: list[str] = []

    def run(self) -> None:
        i, n = 0, len(self.lines)
        while i < n:
            line = self.lines[i]
            if line.lstrip().startswith(_COMMENT_OPEN):
                i = self._comment(i)
                continue
            fence = _FENCE_OPEN.match(line)
            if fence:
                self._flush()
                i = self._fence(i, fence)
                continue
            if _DETAILS_OPEN.search(line) or _DETAILS_CLOSE.search(line) or _SUMMARY.search(line):
                self._flush()
                self._tags(i, line)
                i += 1
                continue
            if self.details:
                self._gather(i, line)
                i += 1
                continue
            if _QUOTE.match(line) and self.depth < MAX_QUOTE_DEPTH:
                i = self._quote(i)
                continue
            if _INDENTED.match(line) and line.strip() and self._may_indent(i):
                i = self._indented(i)
                continue
            self._prose(i, line)
            i += 1
        self._flush()

    def _no(self, i: int) -> int:
        return self.offset + i

    def _prose(self, i: int, line: str) -> None:
        words = re.sub(r"<!--.*?-->", "", line)
        if words.strip():
            self.out.prose[self._no(i)] = words

    def _comment(self, i: int) -> int:
        """An HTML comment (a template's instructions) is not read; the text after it is."""
        j = i
        while j < len(self.lines) and _COMMENT_CLOSE not in self.lines[j]:
            j += 1
        if j < len(self.lines):
            rest = self.lines[j].split(_COMMENT_CLOSE, 1)[1]
            if rest.strip():
                self._prose(j, rest)
        return j + 1

    def _fence(self, i: int, m: re.Match[str]) -> int:
        indent, marks, language = len(m.group(1)), m.group(2), m.group(3).lower()
        close = re.compile(rf"^\s*{re.escape(marks[0])}{{{len(marks)},}}\s*$")
        j = i + 1
        while j < len(self.lines) and not close.match(self.lines[j]):
            j += 1
        body = [_dedent(ln, indent) for ln in self.lines[i + 1 : j]]  # unclosed: to the end
        if self.depth == 0:
            self.out.fences[self._no(i)] = self.lines[i]
            if j < len(self.lines):
                self.out.fences[self._no(j)] = self.lines[j]
        if any(ln.strip() for ln in body):
            self._block(i + 1, body, "fence", language)
        return j + 1

    def _tags(self, i: int, line: str) -> None:
        self.details += len(_DETAILS_OPEN.findall(line))
        summary = _SUMMARY.search(line)
        self.details = max(0, self.details - len(_DETAILS_CLOSE.findall(line)))
        words = summary.group(1) if summary else _TAG.sub("", line)
        if words.strip():
            self._prose(i, words)

    def _gather(self, i: int, line: str) -> None:
        """Unfenced lines of a details body: one block from the first to the last."""
        if self.run_start is None:
            if not line.strip():
                return
            self.run_start = i
        self.held.append(line)

    def _flush(self) -> None:
        if self.run_start is None:
            return
        held = list(self.held)
        while held and not held[-1].strip():
            held.pop()
        start, self.run_start, self.held = self.run_start, None, []
        if mostly_prose("\n".join(held[:40])):  # a sentence inside <details> is still words
            for k, ln in enumerate(held):
                self._prose(start + k, ln)
        else:
            self._block(start, held, "details")

    def _quote(self, i: int) -> int:
        j = i
        while j < len(self.lines) and _QUOTE.match(self.lines[j]):
            j += 1
        inner = [_QUOTE.sub("", ln, count=1) for ln in self.lines[i:j]]
        sub = SplitBody(line_count=self.out.line_count)
        _Splitter(inner, self._no(i), sub, self.depth + 1).run()
        self.out.blocks.extend(sub.blocks)
        said = sorted(sub.prose)
        if said and not mostly_prose("\n".join(sub.prose[no] for no in said[:40])):
            for run in _runs(said):  # quoted output (`> NCCL WARN …`): a block per run
                first = run[0]
                body = [sub.prose.get(no, "") for no in range(first, run[-1] + 1)]
                self.out.blocks.append(Block(first, body, "quote"))
        else:
            for no in said:  # quoted words stay words, quote marks and all
                self.out.prose[no] = self.lines[no - self.offset]
        return j

    def _may_indent(self, i: int) -> bool:
        """CommonMark: an indented block does not continue a paragraph or a list item."""
        if i == 0:
            return True
        if self.lines[i - 1].strip():
            return False
        for k in range(i - 1, -1, -1):
            above = self.lines[k]
            if above.strip() and not _INDENTED.match(above):
                return not _LIST_ITEM.match(above)
        return True

    def _indented(self, i: int) -> int:
        j, last = i, i
        while j < len(self.lines) and (_INDENTED.match(self.lines[j]) or not self.lines[j].strip()):
            if self.lines[j].strip():
                last = j
            j += 1
        self._block(i, [_dedent(ln, 4) for ln in self.lines[i : last + 1]], "indented")
        return last + 1

    def _block(self, i: int, body: list[str], origin: str, language: str = "") -> None:
        self.out.blocks.append(
            Block(self._no(i), body, origin, language, label=self._label(i, origin))
        )

    def _label(self, i: int, origin: str) -> str:
        """A file or tool name on the line above the block (or its fence), if that line is
        short enough to be a label rather than a sentence."""
        k = i - (2 if origin == "fence" else 1)
        while k >= 0 and not self.lines[k].strip():
            k -= 1
        if k < 0 or i - k > 4:
            return ""
        above = _SUMMARY.sub(lambda m: m.group(1), self.lines[k])
        above = _TAG.sub("", above).strip().strip("#*_`:> ").strip()
        if not above or len(above) > MAX_LABEL:
            return ""
        if _FILE_NAME.fullmatch(above):  # a caption naming the file says nothing of the problem
            self.out.prose.pop(self._no(k), None)
        return label_of(above)


def label_of(words: str) -> str:
    """The file name a short label gives a pasted block.

    >>> label_of("rank0.log"), label_of("Output of pip list"), label_of("Logs")
    ('rank0.log', 'pip-list.txt', '')
    """
    m = _FILE_NAME.search(words)
    if m:
        return m.group(0).lstrip(".-") or ""
    for pattern, name in _TOOLS:
        if pattern.search(words):
            return name
    return ""


def _dedent(line: str, width: int) -> str:
    lead = len(line) - len(line.lstrip(" "))
    return line[min(lead, width) :] if not line.startswith("\t") else line[1:]


def _runs(numbers: list[int]) -> list[list[int]]:
    """Consecutive runs of line numbers (a gap of blank lines joins them)."""
    runs: list[list[int]] = []
    for no in numbers:
        if runs and no - runs[-1][-1] <= 2:
            runs[-1].append(no)
        else:
            runs.append([no])
    return runs
