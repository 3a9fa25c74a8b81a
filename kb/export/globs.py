"""A query's `files [...]` globs as one RE2 regex over the shipped `file` field.

Mirrors `kb.evidence.selection.glob_ok`: a glob without `/` matches the base name, `**/x`
matches `x` at any depth, and an archive member is matched by its path inside the archive.

>>> import re
>>> bool(re.search(globs_regex(["rank*.log"]), "logs.tar.gz!/node1/rank0.log"))
True
>>> bool(re.search(globs_regex(["logs/*/stderr.log"]), "logs/3/stderr.log"))
True
>>> bool(re.search(globs_regex(["rank?.log"]), "rank10.log"))
False
"""

from __future__ import annotations

import re


def _glob_body(glob: str) -> str:
    out = []
    i = 0
    while i < len(glob):
        ch = glob[i]
        if ch == "*":
            out.append(".*")
        elif ch == "?":
            out.append(".")
        elif ch == "[":
            end = glob.find("]", i + 1)
            if end == -1:
                out.append(re.escape(ch))
            else:
                inner = glob[i + 1 : end]
                negated = inner.startswith("!")
                inner = inner[1:] if negated else inner
                out.append("[" + ("^" if negated else "") + inner.replace("\\", "\\\\") + "]")
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def glob_regex(glob: str) -> str:
    if glob.startswith("**/"):
        return "(^|/|!/)" + _glob_body(glob[3:]) + "$"
    if "/" not in glob:
        return "(^|/|!/)" + _glob_body(glob) + "$"
    return "(^|!/)" + _glob_body(glob) + "$"


def globs_regex(globs: list[str]) -> str:
    return "|".join(f"(?:{glob_regex(g)})" for g in globs)
