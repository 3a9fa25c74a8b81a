"""Which files a case's log query looks at: by kind (`sources [...]`) and by path (`files [...]`).

The matcher uses it to pick the files a query counts; the reader uses the same test to scan a
file only for the patterns that can count there (a pattern for the user's notes is not run over
gigabytes of NCCL logs).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence

from kb.evidence.lazy_pattern import lazy

# Kinds that hold a person's words or code, not tool output: a query reads them only when it
# names them in `sources` (notes also feed quoted lines to every query, see kb.match.queries).
WORDS_ONLY = frozenset({"notes", "python-source"})


# A quote in any style people use for pasted output: `backticks`, "double", “curly” and
# 「CJK」 quotes. Single quotes are left out: they are apostrophes as often as quotes.
_QUOTED = lazy(r'`([^`]+)`|"([^"]{4,})"|\u201c([^\u201d]{4,})\u201d|\u300c([^\u300d]{4,})\u300d')
_BLOCK_QUOTE = lazy(r"^\s{0,3}>\s?(.+)$")


def quoted_parts(text: str) -> list[str]:
    """What a line of a person's words quotes: pasted tool output, which log queries read as
    log lines (the prose around it they do not). Any quoting style counts: backticks,
    double or curly quotes, 「」, and a Markdown block quote (`> line`).

    >>> quoted_parts("rank 3 prints `NCCL WARN Cuda failure 'out of memory'` and stops")
    ["NCCL WARN Cuda failure 'out of memory'"]
    >>> quoted_parts('it fails with "NET/IB : Got completion from peer x with error 12"')
    ['NET/IB : Got completion from peer x with error 12']
    >>> quoted_parts("> [rank1]: RuntimeError: NCCL error")
    ['[rank1]: RuntimeError: NCCL error']
    >>> quoted_parts("no quotes here, isn't it")
    []
    """
    block = _BLOCK_QUOTE.match(text)
    if block:
        return [block.group(1)]
    return [next(g for g in m.groups() if g is not None) for m in _QUOTED.finditer(text)]


def glob_ok(path: str, globs: Sequence[str]) -> bool:
    """Whether a display path (archive members as `a.tar.gz!/x/y.log`) matches any glob.

    >>> glob_ok("logs.tar.gz!/node1/rank0.log", ["rank*.log"]), glob_ok("a/b.txt", ["**/b.txt"])
    (True, True)
    """
    if not globs:
        return True
    inner = path.split("!/", 1)[-1]
    for glob in globs:
        for candidate in (path, inner):
            if fnmatch.fnmatch(candidate, glob) or (
                glob.startswith("**/") and fnmatch.fnmatch(candidate, glob[3:])
            ):
                return True
            if "/" not in glob and fnmatch.fnmatch(candidate.rsplit("/", 1)[-1], glob):
                return True
    return False


def scanned_in(sources: Sequence[str], files: Sequence[str], kind: str, path: str) -> bool:
    """Whether a query with these `sources`/`files` can use lines of this file.

    Without `sources`, every kind but python source counts (notes for their quoted lines).

    >>> scanned_in(["notes"], [], "nccl", "r0.log"), scanned_in([], [], "notes", "notes.md")
    (False, True)
    >>> scanned_in([], [], "python-source", "train.py"), scanned_in([], ["*.log"], "nccl", "x.txt")
    (False, False)
    """
    if sources:
        if kind not in sources:
            return False
    elif kind == "python-source":
        return False
    return glob_ok(path, files)
