"""A message template, as its emitter prints it, turned into the regex the scanner runs.

Templates keep the emitter's text and name its variable parts, so the catalogue reads like
the source it came from and a case can put a condition on a part by name:

    NET/IB : Got completion from peer {peer} with error {status:int}, vendor err {vendor:int}

`{name}` is any text (possibly empty), `{name:int}` a whole number, `{name:hex}` a hex number
(with or without 0x), `{name:num}` a decimal number, `{name:word}` a run without spaces;
`{_}` is an anonymous gap. `{{` and `}}` are literal braces. A run of spaces matches any run
of blanks (logs re-indent and terminals re-wrap).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Bumped when a template compiles to a different pattern: the compile cache and the message
# index carry it in their keys, so a cached pattern of the old shape is never reused.
TEMPLATE_VERSION = 8

# What each field type matches. Bodies carry no capture groups of their own, so a condition
# can replace a body with alternatives of literal values (see `with_values`).
TYPES: dict[str, str] = {
    "text": r".*?",
    "int": r"-?\d+",
    "hex": r"(?:0[xX])?[0-9a-fA-F]+",
    "num": r"-?\d+(?:\.\d+)?",
    "word": r"\S+",
}

_FIELD = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)(?::([a-z]+))?\}|[{}]")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class TemplateError(ValueError):
    """A template that cannot be turned into a pattern; the message says what to write."""


@dataclass(frozen=True)
class Template:
    text: str
    regex: str  # named groups, one per field
    fields: dict[str, str]  # field name -> type, in order of appearance
    required: str = ""  # the regex of the start every match holds, even a line cut early


def as_printed(text: str) -> str:
    """`text` as a reader expects to see it: literal braces single, fields kept as `{name}`.

    >>> as_printed("query_ece={{supported={ece:int}}} GID {gid}")
    'query_ece={supported={ece:int}} GID {gid}'
    """
    return _FIELD.sub(lambda f: f.group(0)[0] if f.group(0) in ("{{", "}}") else f.group(0), text)


def parse_template(text: str) -> Template:
    """The pattern for `text`; raises TemplateError with the reason."""
    if not text.strip():
        raise TemplateError("a wording needs some text")
    atoms: list[_Atom] = []
    fields: dict[str, str] = {}
    pos = 0
    for found in _FIELD.finditer(text):
        atoms += _words(text[pos : found.start()])
        pos = found.end()
        token = found.group(0)
        if token in ("{{", "}}"):
            atoms.append(_Atom(re.escape(token[0]), "word", token[0]))
            continue
        if token in ("{", "}"):
            raise TemplateError(
                f"a lone `{token}` at column {found.start() + 1}: write `{token * 2}` for a "
                "literal brace, or `{name}` / `{name:int}` for a field"
            )
        name, kind = found.group(1), found.group(2) or "text"
        if kind not in TYPES:
            raise TemplateError(
                f"`{{{name}:{kind}}}`: unknown field type `{kind}` (types: {', '.join(TYPES)})"
            )
        shape = "text" if kind == "text" else "field"
        if name == "_":
            atoms.append(_Atom(f"(?:{TYPES[kind]})", shape))
            continue
        if name in fields:
            raise TemplateError(f"the field `{name}` appears twice; give the second a new name")
        fields[name] = kind
        atoms.append(_Atom(f"(?P<{name}>{TYPES[kind]})", shape))
    atoms += _words(text[pos:])
    if atoms and atoms[-1].shape == "word" and atoms[-1].word.endswith("."):
        # the full stop that ends a message is often lost (a re-raised exception, a copy)
        word = atoms[-1].word
        atoms[-1] = _Atom(_word_regex(word[:-1]) + r"\.?", "word", word)
    literal = re.sub(r"\{[^{}]*\}", "", text)
    if len(re.sub(r"\s+", "", literal)) < 6:
        raise TemplateError("a wording needs at least six characters of fixed text to be found")
    atoms = _cut_at_line_start(atoms)
    regex, required = _cut_at_line_end(atoms)
    return Template(text=text, regex=regex, fields=fields, required=required)


@dataclass(frozen=True)
class _Atom:
    regex: str
    shape: str  # "word" (fixed text without blanks), "space", "field", "text" (a text field)
    word: str = ""


def _words(part: str) -> list[_Atom]:
    return [
        _Atom(r"\s+", "space") if p.isspace() else _Atom(_word_regex(p), "word", p)
        for p in re.findall(r" +|[^ ]+", part)
    ]


def _word_regex(word: str) -> str:
    """A fixed word; a backtick in it may be missing: a message quoting a name in backticks
    (`` `FlatParameter` requires uniform dtype ``) loses them when pasted into a thread
    outside a code block, where markdown turns them into code formatting."""
    return re.escape(word).replace("`", "`?")


# Where a line may end early. A log posted in a thread, a terminal or a grep is often cut at
# the margin (`… ran for 1800437 millisecond`, `Duplicate GPU detected : rank 1 and rank 0
# both on CUDA device`): what was printed before the cut still names the message once every
# part that tells it from its neighbours was read. Two emitters' messages can share a long
# start (PyTorch's `Watchdog caught collective operation timeout: WorkNCCL(…` and torch_npu's
# `…: WorkHCCL(…`), so a line may end only in the fixed text after the last field (KEPT
# characters of it read: `…:1970, unhandled` vs `…:1970, invalid`), or among trailing fields
# once all the fixed text was read; a message with no field, after half its text (WHOLE
# characters at least). A text field (`{name}`) could stretch to any line end: after one,
# the next word must be read whole.
KEPT = 4
WHOLE = 24
_EOL = r"[ \t\r]*$"


def _cut_at_line_end(atoms: list[_Atom]) -> tuple[str, str]:
    """The regex of `atoms` (the whole message, or its start up to a line's end), and the
    regex of the start every match holds (a prefilter may look for its fixed text)."""
    field_at = [i for i, a in enumerate(atoms) if a.shape in ("field", "text")]
    words_at = [i for i, a in enumerate(atoms) if a.shape == "word"]
    fixed = sum(len(atoms[i].word) for i in words_at)
    last_field = field_at[-1] if field_at else -1
    last_word = words_at[-1] if words_at else -1
    least_read = WHOLE if field_at else max(WHOLE, fixed // 2)
    total = tail = 0  # fixed characters read in all, and since the last field
    may_end_after: list[bool] = []
    partial_from: list[int] = []  # the shortest start of a word a line may end in (0: none)
    after_text = False
    for i, atom in enumerate(atoms):
        after_text = atom.shape == "text" or (after_text and atom.shape != "word")
        if atom.shape == "word" and i > last_field and i > 0 and not _text_before(atoms, i):
            least = max(1, least_read - total, KEPT - tail if field_at else 1)
            partial_from.append(least if least < len(atom.word) else 0)
        else:
            partial_from.append(0)
        if atom.shape == "word":
            total += len(atom.word)
            tail += len(atom.word) if i > last_field else 0
        in_tail = i > last_field and total >= least_read and (not field_at or tail >= KEPT)
        all_read = bool(field_at) and i >= last_word and i >= field_at[0]
        may_end_after.append((in_tail or all_read) and not after_text)
    regex = ""
    for i in range(len(atoms) - 1, -1, -1):
        atom = atoms[i]
        last = i == len(atoms) - 1
        rest = regex if last or not may_end_after[i] else f"(?:{regex}|{_EOL})"
        regex = atom.regex + rest
        if partial_from[i]:
            regex = f"(?:{regex}|{_prefix(atom.word, partial_from[i])}{_EOL})"
    cuts = [i for i, p in enumerate(partial_from) if p]
    cuts += [i + 1 for i, ok in enumerate(may_end_after) if ok and i < len(atoms) - 1]
    required = "".join(a.regex for a in atoms[: min(cuts, default=len(atoms))])
    return regex, required


# Where a line may start late. A paste often begins mid-line (`exits with return code = -9`,
# the command before it not selected): a message that opens with a field and a blank may start
# at its fixed text, when that text is long enough to name it alone (LEADING characters).
LEADING = 16
_LINE_START = r"|^[ \t]*)"


def _cut_at_line_start(atoms: list[_Atom]) -> list[_Atom]:
    """`atoms` whose leading field (and the blank after it) may be missing at a line's start."""
    if len(atoms) < 3 or atoms[0].shape not in ("field", "text") or atoms[1].shape != "space":
        return atoms
    if sum(len(a.word) for a in atoms[2:] if a.shape == "word") < LEADING:
        return atoms
    head = _Atom(f"(?:{atoms[0].regex}{atoms[1].regex}{_LINE_START}", atoms[0].shape)
    return [head, *atoms[2:]]


def _text_before(atoms: list[_Atom], i: int) -> bool:
    """A text field comes right before atom i (blanks between): it could end anywhere."""
    j = i - 1
    while j >= 0 and atoms[j].shape == "space":
        j -= 1
    return j >= 0 and atoms[j].shape == "text"


def _prefix(word: str, least: int) -> str:
    """`word` cut after at least `least` of its characters, before its end."""
    optional = ""
    for ch in reversed(word[least:-1]):
        optional = f"(?:{re.escape(ch)}{optional})?"
    return re.escape(word[:least]) + optional


def with_values(regex: str, values: dict[str, list[str]]) -> str:
    """`regex` with the body of each named field replaced by the alternatives given.

    Only bodies of our own template fields are replaced: they hold no groups, so the first
    `)` after `(?P<name>` that is not escaped or inside a class ends them."""
    for name, options in values.items():
        if not _NAME.match(name):
            raise TemplateError(f"`{name}` is not a field name")
        start = regex.find(f"(?P<{name}>")
        if start < 0:
            raise TemplateError(f"the pattern has no field `{name}`")
        body_start = start + len(f"(?P<{name}>")
        end = _group_end(regex, body_start)
        alternatives = "|".join(re.escape(o) for o in options)
        regex = f"{regex[:body_start]}{alternatives}{regex[end:]}"
        if start == len("(?:") and regex.startswith(f"(?:(?P<{name}>"):
            # a condition on a leading field needs the field: the line may not start late
            regex = regex.replace(_LINE_START, ")", 1)
    return regex


def _group_end(regex: str, i: int) -> int:
    depth, in_class = 0, False
    while i < len(regex):
        c = regex[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    raise TemplateError("unbalanced parentheses in the pattern")


def field_names(regex: str) -> list[str]:
    """The named groups of an explicit pattern (a wording written as /regex/)."""
    return re.findall(r"\(\?P<([A-Za-z_][A-Za-z0-9_]*)>", regex)
