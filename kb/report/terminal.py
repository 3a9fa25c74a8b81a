"""Text for a terminal from strangers' data: only what should reach the screen does.

Log lines and case text can carry escape sequences that retitle the window, clear the screen,
hide what follows (`ESC [8m`, conceal) or move the cursor to overwrite what a report said, and
bidi overrides (U+202E) that show a line in another order than it reads. Two layers:

- `evidence_for_terminal` is the one escaping function for evidence-derived text (log lines,
  paths, notes): every control character, every escape sequence (SGR included) and every
  bidi control becomes a visible `\\xNN` / `\\uNNNN`, so nothing of it is live.
- `safe_for_terminal` runs over a whole report: it keeps only the report's own colours
  (`ESC [ N m` with the few codes `text.Style` writes) and escapes everything else the same
  way, so a field a renderer forgot to escape still cannot hide, move or retitle anything.

>>> safe_for_terminal("ok \\x1b[1mbold\\x1b[0m \\x1b]0;pwned\\x07 \\x1b[2J x\\ty\\n")
'ok \\x1b[1mbold\\x1b[0m \\\\x1b]0;pwned\\\\x07 \\\\x1b[2J x\\ty\\n'
>>> safe_for_terminal("\\x1b[8mhidden")
'\\\\x1b[8mhidden'
>>> evidence_for_terminal("\\x1b[1mNCCL\\x1b[0m \\u202egnp.exe\\t\\x9b")
'\\\\x1b[1mNCCL\\\\x1b[0m \\\\u202egnp.exe\\t\\\\x9b'
"""

from __future__ import annotations

import re

from kb.evidence.lazy_pattern import lazy

# bidi embeddings/overrides/isolates and marks, and the line/paragraph separators: never live
BIDI = "\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_CONTROL = rf"[\x00-\x08\x0a-\x1f\x7f-\x9f{BIDI}]"
# the colours text.Style writes: reset, bold, dim, red, green, yellow, cyan
_OWN_SGR = r"\x1b\[(?:0|1|2|31|32|33|36)m"
_UNSAFE = lazy(rf"({_OWN_SGR})|\n|\t|{_CONTROL}")
_EVIDENCE_UNSAFE = lazy(_CONTROL)


def _visible(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def evidence_for_terminal(text: str) -> str:
    """`text` from evidence with every control, escape sequence and bidi control made
    visible (tabs kept): one line, nothing live."""
    return _EVIDENCE_UNSAFE.sub(lambda m: _visible(m.group(0)), text)


def safe_for_terminal(text: str) -> str:
    """A whole report: the report's own colours, newlines and tabs kept; every other control
    character or bidi control shown as a visible escape."""

    def repl(m: re.Match[str]) -> str:
        s = m.group(0)
        return s if m.group(1) or s in "\n\t" else _visible(s)

    return _UNSAFE.sub(repl, text)
