"""Find printf-style message calls in a C source tree and turn their formats into catalogue templates.

Shared by the extractors of C emitters (extract_nvidia_driver.py, extract_rdma_core.py): each
names the functions that print, which argument is the format and what prefix the function adds;
this module reads the tree (a work tree, or a git revision without checking it out), finds the
calls, joins the format's adjacent string literals (expanding `#define NAME "text"` macros such
as libibverbs' PFX) and converts the printf format into the template syntax of
`catalogue/messages/` (`%d` -> `{_:int}`, `%x` -> `{_:hex}`, `%s` -> `{_}`, `{` -> `{{`, tabs -> one space).
Standard library only.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

C_SUFFIXES = (".c", ".h", ".cc", ".cpp")

# printf conversions: flags, width, precision, length, conversion
_SPEC = re.compile(
    r"%([-+ #0']*)(\*|\d+)?(?:\.(\*|\d+))?(hh|h|ll|l|z|j|t|L|q)?([diouxXeEfgGcspn%])"
)
_STRING_DEFINE = re.compile(
    r'^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+((?:"(?:[^"\\\n]|\\.)*"[ \t]*)+)', re.M
)
# <inttypes.h> macros: PRIx64 -> "lx" and so on
_PRI = re.compile(r"^PRI([diouxX])(8|16|32|64|PTR|MAX)$")
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'", "r": "", "0": ""}


class SourceError(Exception):
    """The tree or revision cannot be read; the message says why."""


@dataclass(frozen=True)
class Printer:
    """A function or macro that prints a message: its name, which argument is the format, and
    the text it puts before the format (already in template syntax)."""

    name: str
    format_index: int
    prefix: str = ""
    suffix: str = ""


@dataclass(frozen=True)
class Found:
    path: str
    line: int
    printer: str
    template: str


class Tree:
    """The files of a checkout: the work tree, or one git revision of it."""

    def __init__(self, repo: Path, rev: str | None = None) -> None:
        if not repo.exists():
            raise SourceError(f"{repo}: no such directory")
        self.repo = repo
        self.rev = rev
        if rev is not None:
            self._git("rev-parse", "--verify", f"{rev}^{{commit}}")

    def _git(self, *args: str) -> str:
        try:
            done = subprocess.run(
                ["git", "-C", str(self.repo), *args], capture_output=True, text=True, check=False
            )
        except FileNotFoundError as exc:
            raise SourceError("git is needed to read a revision (--rev)") from exc
        if done.returncode != 0:
            raise SourceError(done.stderr.strip() or f"git {' '.join(args)} failed")
        return done.stdout

    def files(self, under: Iterable[str]) -> list[str]:
        """Paths (relative, '/'-separated) of C sources below each of `under`, sorted."""
        paths: set[str] = set()
        for top in under:
            if self.rev is not None:
                listed = self._git("ls-tree", "-r", "--name-only", self.rev, "--", top)
                paths.update(p for p in listed.splitlines() if p.endswith(C_SUFFIXES))
                continue
            base = self.repo / top
            if base.is_file():
                paths.add(top)
            elif base.is_dir():
                paths.update(
                    p.relative_to(self.repo).as_posix()
                    for p in base.rglob("*")
                    if p.is_file() and p.name.endswith(C_SUFFIXES)
                )
        return sorted(paths)

    def read(self, path: str) -> str:
        if self.rev is not None:
            return self._git("show", f"{self.rev}:{path}")
        return (self.repo / path).read_text(encoding="utf-8", errors="replace")


def string_macros(sources: Iterable[str]) -> dict[str, str]:
    """`#define NAME "text" "more"` macros found in `sources`, as their joined text."""
    found: dict[str, str] = {}
    for text in sources:
        for match in _STRING_DEFINE.finditer(text):
            found.setdefault(match.group(1), "".join(_literals(match.group(2))))
    return found


def scoped_macros(texts: dict[str, str]) -> dict[str, dict[str, str]]:
    """For each path, the string macros it sees: those defined in its own folder win over those
    of the rest of the tree (libibverbs and the mlx5 provider each define their own PFX)."""
    by_folder: dict[str, list[str]] = {}
    for path, text in texts.items():
        by_folder.setdefault(path.rpartition("/")[0], []).append(text)
    everywhere = string_macros(texts.values())
    local = {folder: string_macros(group) for folder, group in by_folder.items()}
    return {path: {**everywhere, **local[path.rpartition("/")[0]]} for path in texts}


def find_messages(
    path: str, text: str, printers: Iterable[Printer], macros: dict[str, str]
) -> Iterator[Found]:
    """Every call of one of `printers` in `text` whose format is made of string literals (and
    string macros); one Found per line of the message."""
    by_name = {p.name: p for p in printers}
    call = re.compile(r"\b(" + "|".join(map(re.escape, by_name)) + r")\s*\(")
    clean = _blank_comments(text)
    for match in call.finditer(clean):
        printer = by_name[match.group(1)]
        args = _arguments(clean, match.end())
        if args is None or len(args) <= printer.format_index:
            continue
        fmt = _format_text(args[printer.format_index], macros)
        if fmt is None:
            continue
        line = clean.count("\n", 0, match.start()) + 1
        pieces = [piece for piece in fmt.split("\n") if piece.strip()]
        for number, piece in enumerate(pieces):
            template = printf_to_template(piece)
            if number == 0:
                template = printer.prefix + template
            if number == len(pieces) - 1:
                template += printer.suffix
            yield Found(path, line, printer.name, template.strip())


def printf_to_template(fmt: str) -> str:
    """`fmt` (a printf format) in the catalogue's template syntax."""
    out: list[str] = []
    pos = 0
    for spec in _SPEC.finditer(fmt):
        out.append(fmt[pos : spec.start()].replace("{", "{{").replace("}", "}}"))
        pos = spec.end()
        conv = spec.group(5)
        if conv == "%":
            out.append("%")
        elif conv in "diou":
            out.append("{_:int}")
        elif conv in "xXp":
            out.append("{_:hex}")
        elif conv in "eEfgG":
            out.append("{_:num}")
        else:
            out.append("{_}")
    out.append(fmt[pos:].replace("{", "{{").replace("}", "}}"))
    # a run of blanks in a template matches any run of blanks, so tabs read as one space
    return re.sub(r"[ \t]+", " ", "".join(out))


def _blank_comments(text: str) -> str:
    """`text` with comments replaced by spaces (newlines kept, so line numbers stay right);
    string and character literals are left alone."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        two = text[i : i + 2]
        if two == "//":
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif two == "/*":
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("".join(c if c == "\n" else " " for c in text[i:end]))
            i = end
        elif text[i] in "\"'":
            end = _literal_end(text, i)
            out.append(text[i:end])
            i = end
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _literal_end(text: str, start: int) -> int:
    quote = text[start]
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == quote or text[i] == "\n":
            return i + 1
        i += 1
    return len(text)


def _arguments(text: str, start: int) -> list[str] | None:
    """The top-level arguments of the call whose '(' ends just before `start`; None when the
    parenthesis is never closed."""
    args: list[str] = []
    depth, begin, i = 0, start, start
    while i < len(text):
        c = text[i]
        if c in "\"'":
            i = _literal_end(text, i)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                args.append(text[begin:i])
                return args
            depth -= 1
        elif c == "," and depth == 0:
            args.append(text[begin:i])
            begin = i + 1
        i += 1
    return None


def _format_text(arg: str, macros: dict[str, str]) -> str | None:
    """The text of a format argument made of string literals and macro names; unknown names
    read as a gap (`%s`). None when the argument holds no string literal at all."""
    parts: list[str] = []
    has_literal = False
    for token in re.finditer(r'"(?:[^"\\\n]|\\.)*"|[A-Za-z_]\w*|\S', arg):
        word = token.group(0)
        if word.startswith('"'):
            parts.extend(_literals(word))
            has_literal = True
        elif pri := _PRI.match(word):
            parts.append("l" + pri.group(1))
        elif word in macros:
            parts.append(macros[word])
        elif word[0].isalpha() or word[0] == "_":
            parts.append("%s")
        else:
            return None  # an expression (a ?: choice, a call): not a plain format
    return "".join(parts) if has_literal else None


def _literals(source: str) -> list[str]:
    """The unescaped contents of each C string literal in `source`."""
    return [
        re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)
        for body in re.findall(r'"((?:[^"\\\n]|\\.)*)"', source)
    ]
