"""A small tokenizer over regex source text, for what the engines cannot tell us themselves.

Why: both engines scan whole chunks, not single lines, so three things must be decided from the
pattern text: which constructs need backtracking (rejected with a clear message), where `$` must
also accept a `\\r` before the newline (CRLF logs), and whether a pattern could match a newline
(its hits are then re-checked on the line alone, so a match never spans two lines).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

# Escapes that can match "\n" (or that we cannot rule out): whitespace, negated classes,
# explicit code points, Unicode properties, generic newlines.
_NL_ESCAPES = frozenset("sWDnvpPRxXNhHVcCeuU01234567")
# Escapes anchored to the scanned buffer, not to the line; chunks would make them meaningless.
_BUFFER_ANCHORS = {"A": r"\A", "z": r"\z", "Z": r"\Z", "G": r"\G"}
_LOOKAROUND = (
    ("(?=", "lookahead"),
    ("(?!", "negative lookahead"),
    ("(?<=", "lookbehind"),
    ("(?<!", "negative lookbehind"),
    ("(?>", "atomic group"),
)
_INLINE_FLAGS = re.compile(r"\(\?([a-zA-Z]*)(?:-[a-zA-Z]*)?[:)]")


_PAIRS: dict[tuple[str, bool], tuple[str, bool]] = {}  # one object per distinct token
_PAIRS_MAX = 20_000


@lru_cache(maxsize=4096)
def _tokens(regex: str) -> tuple[tuple[str, bool], ...]:
    """(token, inside_class) pairs, tokenized once per pattern: a case set of 500 patterns is
    checked by several functions here, which together tokenized it six times. Equal pairs are
    one shared object: a pattern is mostly single characters, and a tuple per character kept
    about 4 MB alive for the bundled cases, a fifth of `kb diagnose`'s growth in peak memory."""
    out = []
    for pair in _tokenize(regex):
        shared = _PAIRS.get(pair)
        if shared is None:
            shared = pair
            if len(_PAIRS) < _PAIRS_MAX:
                _PAIRS[pair] = pair
        out.append(shared)
    return tuple(out)


def _tokenize(regex: str) -> Iterator[tuple[str, bool]]:
    """Yield (token, inside_class); a token is an escape (`\\x`), a class bracket, or one char."""
    i, n, in_class = 0, len(regex), False
    while i < n:
        c = regex[i]
        if c == "\\" and i + 1 < n:
            end = i + 2
            if regex[i + 1] in "pPxN" and end < n and regex[end] == "{":  # \p{Han}, \x{263a}
                close = regex.find("}", end)
                end = close + 1 if close != -1 else n
            yield regex[i:end], in_class
            i = end
            continue
        if not in_class and c == "[":
            yield c, False
            in_class = True
            i += 1
            # A leading "^" and a "]" right after the opening bracket are literal class members.
            if i < n and regex[i] == "^":
                yield "^", True
                i += 1
            if i < n and regex[i] == "]":
                yield "]", True
                i += 1
            continue
        if in_class and c == "[" and regex.startswith("[:", i):
            end = regex.find(":]", i + 2)
            if end != -1:
                yield regex[i : end + 2], True
                i = end + 2
                continue
        if in_class and c == "]":
            in_class = False
            yield c, False
            i += 1
            continue
        yield c, in_class
        i += 1


def backtracking_construct(regex: str) -> str | None:
    """Name the first construct that needs a backtracking engine, or None."""
    for tok, in_class in _tokens(regex):
        if not in_class and len(tok) == 2 and tok[0] == "\\" and tok[1] in "123456789kg":
            return f"backreference {tok!r}"
    plain = _strip_classes(regex)
    for marker, name in _LOOKAROUND:
        if marker in plain:
            return f"{name} {marker!r}"
    if re.search(r"[*+?}]\+", plain):
        return "possessive quantifier"
    return None


def unicode_construct(regex: str) -> str | None:
    """A construct that needs Unicode-aware matching, or None.

    Both engines match bytes (one byte is one character), so a Unicode property class would
    never match, and a character class holding a non-ASCII character would match single bytes
    of it, not the character. Non-ASCII text outside classes is fine: it is a byte sequence."""
    for tok, in_class in _tokens(regex):
        if tok[:2] in ("\\p", "\\P"):
            return f"the Unicode class {tok!r}"
        if in_class and not tok.isascii():
            return f"the non-ASCII character {tok!r} inside [...]"
    return None


# Counted repetitions cost hyperscan compile time in proportion to their counts (measured:
# `[ab]{500}c{500}` 2 s, `[ab]{200}c{200}` 0.2 s); real cases count to 9 at most.
MAX_REPEAT = 100
MAX_REPEAT_TOTAL = 300
_COUNTED = re.compile(r"\{(\d+)(?:,(\d*))?\}")


def repetition_problem(regex: str) -> str | None:
    """Why the counted repetitions of `regex` are too large to compile quickly, or None."""
    total = 0
    for found in _COUNTED.finditer(_strip_classes(regex)):
        low, high = found.group(1), found.group(2)
        count = max(int(low[:6]), int(high[:6]) if high else 0)
        if count > MAX_REPEAT:
            return f"the repetition {found.group(0)[:20]} counts above {MAX_REPEAT}"
        total += count
    if total > MAX_REPEAT_TOTAL:
        return f"counted repetitions add up to {total}, above {MAX_REPEAT_TOTAL}"
    return None


# hyperscan's compile grows steeply with a long literal inside an alternation (a 5,000-digit
# literal took 90 s, found by scripts/fuzz.py); the bundled cases' longest literal is 70
MAX_LITERAL = 1000
_META = frozenset("()|*+?{}[]^$.")


def literal_problem(regex: str) -> str | None:
    """Why a run of plain characters in `regex` is too long to compile quickly, or None."""
    run = longest = 0
    for tok, in_class in _tokens(regex):
        literal = not in_class and (
            (len(tok) == 1 and tok not in _META)
            or (len(tok) == 2 and tok[0] == "\\" and not tok[1].isalnum())
        )
        run = run + 1 if literal else 0
        longest = max(longest, run)
    if longest > MAX_LITERAL:
        return f"a run of {longest} plain characters is longer than {MAX_LITERAL}"
    return None


def buffer_anchor(regex: str) -> str | None:
    """The first `\\A`, `\\z`, `\\Z` or `\\G` outside a class: they would anchor at chunk edges."""
    for tok, in_class in _tokens(regex):
        if not in_class and len(tok) == 2 and tok[0] == "\\" and tok[1] in _BUFFER_ANCHORS:
            return _BUFFER_ANCHORS[tok[1]]
    return None


def _strip_classes(regex: str) -> str:
    """The pattern with escapes and character classes blanked out (for simple searches)."""
    return "".join(
        "_" if in_class or (len(tok) >= 2 and tok[0] == "\\") else tok
        for tok, in_class in _tokens(regex)
    )


def crlf_dollar(regex: str) -> str:
    """Rewrite each `$` outside a class to `(?:\\r?$)` so `foo$` also ends a CRLF line."""
    return "".join(
        "(?:\\r?$)" if tok == "$" and not in_class else tok for tok, in_class in _tokens(regex)
    )


def to_line_end(regex: str) -> str:
    """`(?:regex).*$` for a pattern that ends in a repetition: its matches then end where the
    line ends, once per line.

    The engines report each end offset of each match, and a pattern such as `epoch \\d+` ends
    at every digit, on every line: a million callbacks into Python per 100 MB of logs. Whether
    a line matches is all the scan needs (captures come later, from the line, with the
    original regex), and one line has one end. A pattern that ends in one fixed character
    (`NCCL WARN`, `rank\\d`, `[0-9]`) ends once per occurrence already, and the suffix costs:
    measured on a 17 MB NCCL log with 540 patterns, 18% more scan work and 70% more compile work.

    >>> print(to_line_end("epoch [0-9]+"), to_line_end("via NET/IB$"), to_line_end("[$]x"))
    (?:epoch [0-9]+).*$ via NET/IB$ [$]x
    >>> print(to_line_end("(a|b)"), to_line_end(r"x\\+"), to_line_end("a{2,}"), to_line_end("ab?"))
    (?:(a|b)).*$ x\\+ (?:a{2,}).*$ (?:ab?).*$
    """
    toks = _tokens(regex)
    if any(tok == "$" and not in_class for tok, in_class in toks):
        return regex  # already ends at a line end (engines refuse a `$` before more pattern)
    last = toks[-1][0] if toks else ""
    if last and last not in ("*", "+", "?", "}", ")", "|"):
        return regex  # one fixed character last: one end per occurrence
    return f"(?:{regex}).*$"


_GLOBAL_FLAGS = re.compile(r"\(\?[a-zA-Z]*(?:-[a-zA-Z]*)?\)")


def alternatives(regex: str) -> list[str]:
    """The top-level alternatives of `regex` (`a|(b|c)|d` -> `a`, `(b|c)`, `d`), or the regex
    alone when it holds a flag group such as `(?i)`, which reaches across `|`.

    A line holds a match of `x|y` iff it holds one of `x` or of `y`, and cases repeat the same
    catalogue wordings in their own alternations: matching each distinct alternative once makes
    the scan database a third smaller and faster to compile (see `kb.scan.shared`).

    >>> alternatives("NCCL WARN|(?:a|b)[|]c|rank [0-9]+")
    ['NCCL WARN', '(?:a|b)[|]c', 'rank [0-9]+']
    >>> alternatives("(?i)foo|bar")
    ['(?i)foo|bar']
    """
    if _GLOBAL_FLAGS.search(regex):
        return [regex]
    out: list[str] = []
    current: list[str] = []
    depth = 0
    for tok, in_class in _tokens(regex):
        if not in_class:
            if tok == "(":
                depth += 1
            elif tok == ")":
                depth -= 1
            elif tok == "|" and depth == 0:
                out.append("".join(current))
                current = []
                continue
        current.append(tok)
    out.append("".join(current))
    return out if all(out) and depth == 0 else [regex]


def may_match_newline(regex: str) -> bool:
    """Conservative: True unless the pattern provably never consumes a newline byte.

    A negated class is newline-free when it lists `\\n` (or `\\s`) itself: `[^"\\n]+`.

    >>> may_match_newline(r'File "[^"\\n]+"'), may_match_newline(r'File "[^"]+"')
    (False, True)
    >>> may_match_newline(r"a\\sb"), may_match_newline(r"[^\\s]+x"), may_match_newline(r"[\\t-\\r]")
    (True, False, True)
    """
    toks = _tokens(regex)
    k = 0
    while k < len(toks):
        tok, in_class = toks[k]
        if tok == "[" and not in_class:
            end = k + 1
            while end < len(toks) and toks[end][1]:
                end += 1
            if _class_may_match_newline(toks[k + 1 : end]):
                return True
            k = end + 1
            continue
        if (len(tok) == 2 and tok[0] == "\\" and tok[1] in _NL_ESCAPES) or tok == "\n":
            return True
        k += 1
    return any("s" in m.group(1) for m in _INLINE_FLAGS.finditer(_strip_classes_keep_groups(regex)))


def _class_may_match_newline(members: Sequence[tuple[str, bool]]) -> bool:
    """Whether one bracket class (its tokens between `[` and `]`) can match a newline."""
    negated = bool(members) and members[0][0] == "^"
    body = [tok for tok, _ in members[1:] if negated] if negated else [t for t, _ in members]
    if negated:
        return not any(tok in ("\\n", "\\s", "\n", "[:space:]", "[:cntrl:]") for tok in body)
    for i, tok in enumerate(body):
        if tok == "\n" or (len(tok) == 2 and tok[0] == "\\" and tok[1] in _NL_ESCAPES):
            return True
        if tok in ("[:space:]", "[:cntrl:]", "[:ascii:]"):
            return True
        if i + 2 < len(body) and body[i + 1] == "-":
            hi = body[i + 2]
            if tok.startswith("\\") or hi.startswith("\\"):
                return True  # a range with an escape such as "\\t-\\r" may cover "\\n"
            if len(tok) == 1 and len(hi) == 1 and ord(tok) <= 10 <= ord(hi):
                return True
    return False


def _strip_classes_keep_groups(regex: str) -> str:
    return "".join("_" if in_class else tok for tok, in_class in _tokens(regex))
