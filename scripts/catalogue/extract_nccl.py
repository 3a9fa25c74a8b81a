"""List the message templates NCCL prints, so the catalogue can follow new NCCL releases.

NCCL logs through two macros: `WARN("fmt", ...)` (printed as `NCCL WARN ...`) and
`INFO(FLAGS, "fmt", ...)` (printed as `NCCL INFO ...` when NCCL_DEBUG=INFO). This script finds
every call in an NCCL checkout, joins the adjacent string literals of the format argument,
and turns the printf format into the catalogue's template syntax (`%d` -> `{_:int}`,
`%s` -> `{_}`, `%lx` -> `{_:hex}`, `%f` -> `{_:num}`, `{` -> `{{`). A maintainer diffs the
output of two releases, or against `catalogue/messages/nccl/`, to see which wordings moved.

    python scripts/catalogue/extract_nccl.py --repo ~/src/nccl                 # work tree
    python scripts/catalogue/extract_nccl.py --repo nccl.git --rev v2.21.5-1  # a tag, no checkout
    python scripts/catalogue/extract_nccl.py --repo nccl.git --rev v2.21.5-1 --level WARN

Each output line is `path:line<TAB>LEVEL<TAB>template`. Given several `--rev` (oldest first),
it prints the release span of every template instead, the way a wording's `since`/`until`
are written: `since<TAB>until<TAB>path:line@rev<TAB>LEVEL<TAB>template`, one line per run of
consecutive revisions holding it (`until` is the first revision without it, empty when the
last one still has it; the location is the one in the span's last revision):

    python scripts/catalogue/extract_nccl.py --repo nccl.git --rev v2.18.6-1 --rev v2.19.3-1

Standard library only.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SOURCE_SUFFIXES = (".cc", ".cu", ".h", ".c", ".cpp")
MACROS = {"WARN": 0, "INFO": 1}  # macro -> index of the format argument
_CALL = re.compile(r"\b(WARN|INFO)\s*\(")
# printf conversions: flags, width, precision, length, conversion
_SPEC = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?(hh|h|ll|l|z|j|t|L)?([diouxXeEfgGcspnm%])")
# <inttypes.h> macros that expand to a conversion's length+letter
_PRI = re.compile(r"^PRI([diouxX])(8|16|32|64|PTR|MAX)$")
# `%s%s%s` (suffixes NCCL appends only in some builds) reads as one gap
_ADJACENT_GAPS = re.compile(r"\{_\}(?:\{_\})+")


@dataclass(frozen=True)
class Message:
    path: str
    line: int
    level: str
    template: str


def printf_to_template(fmt: str) -> str:
    """`fmt` (a printf format) in the catalogue's template syntax."""
    out: list[str] = []
    pos = 0
    for spec in _SPEC.finditer(fmt):
        out.append(_escape_braces(fmt[pos : spec.start()]))
        pos = spec.end()
        conv = spec.group(5)
        if conv == "%":
            out.append("%")
        elif conv in "diu":
            out.append("{_:int}")
        elif conv in "xXp":
            out.append("{_:hex}")
        elif conv in "o":
            out.append("{_:int}")
        elif conv in "eEfgG":
            out.append("{_:num}")
        else:
            out.append("{_}")
    out.append(_escape_braces(fmt[pos:]))
    return "".join(out)


def _escape_braces(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _read_string(src: str, i: int) -> tuple[str, int]:
    """The C string literal starting at src[i] == '"', decoded, and the index after it."""
    out: list[str] = []
    i += 1
    while i < len(src) and src[i] != '"':
        c = src[i]
        if c == "\\" and i + 1 < len(src):
            nxt = src[i + 1]
            out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'"}.get(nxt, nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out), i + 1


def _skip_blank(src: str, i: int) -> int:
    while i < len(src):
        if src[i].isspace() or (src[i] == "\\" and src[i + 1 : i + 2] == "\n"):
            i += 1
        elif src.startswith("//", i):
            end = src.find("\n", i)
            i = len(src) if end < 0 else end
        elif src.startswith("/*", i):
            end = src.find("*/", i)
            i = len(src) if end < 0 else end + 2
        else:
            break
    return i


def _skip_argument(src: str, i: int) -> int:
    """Index of the `,` or `)` that ends the argument starting at i (depth 0)."""
    depth = 0
    while i < len(src):
        c = src[i]
        if c == '"':
            _, i = _read_string(src, i)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return i
            depth -= 1
        elif c == "," and depth == 0:
            return i
        i += 1
    return i


def _format_argument(src: str, i: int) -> str | None:
    """The format string at src[i]: adjacent literals joined; macro names become `%s`
    (or the PRI conversion they stand for). None when the argument holds no literal."""
    parts: list[str] = []
    saw_literal = False
    while True:
        i = _skip_blank(src, i)
        if i >= len(src):
            return None
        if src[i] == '"':
            text, i = _read_string(src, i)
            parts.append(text)
            saw_literal = True
            continue
        ident = re.match(r"#?\s*([A-Za-z_]\w*)", src[i:])
        if ident:
            pri = _PRI.match(ident.group(1))
            # PRIu64 stands for the length+conversion after a literal "%"; any other macro
            # (a name passed as a macro argument) is text we do not know: a gap
            parts.append(f"l{pri.group(1)}" if pri else "%s")
            i += ident.end()
            continue
        break
    if not saw_literal or src[i : i + 1] not in (",", ")"):
        return None
    return "".join(parts)


def extract_source(path: str, src: str) -> list[Message]:
    """Every WARN/INFO call of one source file whose format is a string literal."""
    found: list[Message] = []
    for call in _CALL.finditer(src):
        before = src[max(0, call.start() - 40) : call.start()]
        if re.search(r"#\s*define\s+$", before):
            continue
        level = call.group(1)
        i = call.end()
        for _ in range(MACROS[level]):
            i = _skip_argument(src, i)
            if src[i : i + 1] != ",":
                break
            i += 1
        fmt = _format_argument(src, i)
        if fmt is None:
            continue
        line = src.count("\n", 0, call.start()) + 1
        template = _ADJACENT_GAPS.sub("{_}", printf_to_template(fmt.rstrip("\n")))
        found.append(Message(path, line, level, template))
    return found


def _files_at_rev(repo: Path, rev: str) -> list[str]:
    out = _git(repo, "ls-tree", "-r", "--name-only", rev, "--", "src")
    return [p for p in out.splitlines() if p.endswith(SOURCE_SUFFIXES)]


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, errors="replace"
    )
    if done.returncode != 0:
        raise SystemExit(f"extract_nccl: git {' '.join(args[:2])} failed: {done.stderr.strip()}")
    return done.stdout


def extract(repo: Path, rev: str | None = None) -> list[Message]:
    """Messages of the checkout at `repo` (its work tree, or the git revision `rev`)."""
    messages: list[Message] = []
    if rev:
        for path in _files_at_rev(repo, rev):
            messages.extend(extract_source(path, _git(repo, "show", f"{rev}:{path}")))
        return messages
    root = repo / "src"
    if not root.is_dir():
        raise SystemExit(f"extract_nccl: {root} is not a directory (is --repo an NCCL checkout?)")
    for file in sorted(root.rglob("*")):
        if file.is_file() and file.name.endswith(SOURCE_SUFFIXES):
            text = file.read_text(encoding="utf-8", errors="replace")
            messages.extend(extract_source(file.relative_to(repo).as_posix(), text))
    return messages


@dataclass(frozen=True)
class Span:
    since: str
    until: str  # "" while the newest revision still holds the template
    where: str  # path:line@rev in the span's last revision
    level: str
    template: str


def spans(by_rev: list[tuple[str, list[Message]]]) -> list[Span]:
    """The runs of consecutive revisions (in the order given) that hold each template."""
    revs = [rev for rev, _ in by_rev]
    seen: dict[tuple[str, str], dict[int, str]] = {}
    for index, (rev, messages) in enumerate(by_rev):
        for m in messages:
            seen.setdefault((m.level, m.template), {}).setdefault(index, f"{m.path}:{m.line}@{rev}")
    found: list[Span] = []
    for (level, template), where in seen.items():
        indexes = sorted(where)
        start = indexes[0]
        for i, index in enumerate(indexes):
            last = i + 1 == len(indexes) or indexes[i + 1] != index + 1
            if last:
                until = revs[index + 1] if index + 1 < len(revs) else ""
                found.append(Span(revs[start], until, where[index], level, template))
                if i + 1 < len(indexes):
                    start = indexes[i + 1]
    return sorted(found, key=lambda s: (s.where, s.since))


def _printable(template: str) -> str:
    return template.replace("\n", "\\n").replace("\t", "\\t")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Print NCCL's WARN/INFO message templates (path:line, level, template)."
    )
    parser.add_argument("--repo", required=True, type=Path, help="NCCL checkout or git dir")
    parser.add_argument(
        "--rev",
        action="append",
        help="read this git revision (tag) instead of the work tree; repeat it (oldest first) "
        "to print each template's release span",
    )
    parser.add_argument("--level", choices=sorted(MACROS), help="only WARN or only INFO")
    args = parser.parse_args(argv)
    if not args.repo.exists():
        parser.error(f"--repo {args.repo} does not exist")
    revs = args.rev or [None]
    by_rev = [(rev or "", extract(args.repo, rev)) for rev in revs]
    if len(by_rev) > 1:
        for span in spans(by_rev):
            if not args.level or span.level == args.level:
                fields = (span.since, span.until, span.where, span.level, _printable(span.template))
                print("\t".join(fields))
        return 0
    for m in by_rev[0][1]:
        if not args.level or m.level == args.level:
            print(f"{m.path}:{m.line}\t{m.level}\t{_printable(m.template)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
