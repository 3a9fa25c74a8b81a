"""RE2 patterns rewritten for Lucene's regex (Elasticsearch `/…/`, ES|QL `RLIKE`).

Lucene matches the whole value and has no `\\d \\w \\s` classes, no `(?:` or `(?i)`, no
anchors, and reads `@ & ~ < > # "` as operators. The rewrite keeps the meaning where
Lucene can say it (`\\d` → `[0-9]`, ignore-case → `[aA]`, `.*(…).*` around the whole) and
names what it had to loosen (a word boundary dropped) or could not translate.

>>> to_lucene(r"CUDA out of memory\\. Tried \\d+", ignore_case=False).regex
'.*(CUDA out of memory\\\\. Tried [0-9]+).*'
>>> to_lucene(r"\\bOOM\\b|no (?:rank)", ignore_case=True).regex
'.*([oO][oO][mM]|[nN][oO] ([rR][aA][nN][kK])).*'
>>> to_lucene(r"\\bOOM\\b", ignore_case=False).loosened
['word boundary \\\\b dropped']
"""

from __future__ import annotations

from dataclasses import dataclass, field

TAB = "\t"
CLASSES = {"d": "0-9", "w": "A-Za-z0-9_", "s": f" {TAB}\r\n\f\v"}
NEGATED = {"D": "d", "W": "w", "S": "s"}
OPERATORS = set('@&~<>#"')
LITERAL_ESCAPES = {"n": "\n", "t": TAB, "r": "\r", "f": "\f", "v": "\v"}


@dataclass
class Translation:
    regex: str
    loosened: list[str] = field(default_factory=list)  # matches more than RE2 would
    untranslated: list[str] = field(default_factory=list)  # kept as written: may differ


def _literal(ch: str, ignore_case: bool, in_class: bool) -> str:
    if ch in OPERATORS or ch == "\\":
        return "\\" + ch
    if ignore_case and ch.isascii() and ch.isalpha():
        pair = ch.lower() + ch.upper()
        return pair if in_class else f"[{pair}]"
    return ch


def _top_level_alternation(pattern: str) -> bool:
    depth, in_class, i = 0, False, 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            return True
        i += 1
    return False


def to_lucene(pattern: str, ignore_case: bool) -> Translation:
    out: list[str] = []
    result = Translation(regex="")
    in_class = False
    i = 0
    single = not _top_level_alternation(pattern)
    anchored_start = single and pattern.startswith("^")
    anchored_end = single and pattern.endswith("$") and not pattern.endswith("\\$")
    body = pattern[1 if anchored_start else 0 : len(pattern) - 1 if anchored_end else None]
    while i < len(body):
        ch = body[i]
        nxt = body[i + 1] if i + 1 < len(body) else ""
        if ch == "\\" and nxt:
            i += 2
            if nxt in CLASSES:
                out.append(CLASSES[nxt] if in_class else f"[{CLASSES[nxt]}]")
            elif nxt in NEGATED and not in_class:
                out.append(f"[^{CLASSES[NEGATED[nxt]]}]")
            elif nxt in "bB":
                note = f"word boundary \\{nxt} dropped"
                if note not in result.loosened:
                    result.loosened.append(note)
            elif nxt in LITERAL_ESCAPES:
                out.append(LITERAL_ESCAPES[nxt])
            elif nxt.isalnum():
                result.untranslated.append(f"\\{nxt}")
                out.append("\\" + nxt)
            else:  # an escaped punctuation mark stays escaped: Lucene escapes any character
                out.append("\\" + nxt)
            continue
        if in_class:
            if ch == "]":
                in_class = False
                out.append(ch)
            elif ch == "^" and out and out[-1] == "[":
                out.append(ch)
            else:
                out.append(_literal(ch, ignore_case, True) if ch != "-" else ch)
            i += 1
            continue
        if ch == "[":
            in_class = True
            out.append(ch)
        elif ch == "(" and body.startswith("(?:", i):
            out.append("(")
            i += 3
            continue
        elif ch == "(" and body.startswith("(?P<", i):
            end = body.find(">", i)
            out.append("(")
            i = end + 1 if end != -1 else i + 1
            continue
        elif ch == "(" and nxt == "?":
            result.untranslated.append("an inline group or flag")
            out.append(ch)
        elif ch in "*+?}" and nxt == "?":
            out.append(ch)  # lazy or greedy: the same lines match
            i += 2
            continue
        elif ch in "^$":
            result.untranslated.append(f"{ch} inside the pattern (Lucene has no anchors)")
            out.append("\\" + ch)
        elif ch in "|()*+?{}.":
            out.append(ch)
        else:
            out.append(_literal(ch, ignore_case, False))
        i += 1
    core = "".join(out)
    result.regex = ("" if anchored_start else ".*") + f"({core})" + ("" if anchored_end else ".*")
    return result
