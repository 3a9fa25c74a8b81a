"""Commands as a reader pastes them: `<placeholder>`s become shell variables set first.

Pasted into bash, `kill <PID>` reads `<PID` as a redirection from a file named PID and
`>` as one to a file: the command fails or writes files. Each `<name>` in a shell block
becomes `${NAME}`, and a comment line above the block says to set it, so the block is
still safe to paste while the value is being filled in. Other languages are left alone.
"""

from __future__ import annotations

import re

SHELLS = {"bash", "sh", "shell", "console", "zsh", ""}
# `<name>`: a letter first, then letters, digits, `_ . -` or spaces; a heredoc (`<<EOF`),
# process substitution (`<(cmd)`) and redirections (`< file`, `2>&1`) do not match.
PLACEHOLDER = re.compile(r"<([A-Za-z][A-Za-z0-9_.\- ]{0,60})>")


def variable(name: str) -> str:
    """`PID-from-above` -> `PID_FROM_ABOVE`: a valid shell variable name."""
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_").upper() or "VALUE"


def placeholders(code: str) -> list[str]:
    """The placeholders of a block, each once, in order."""
    return list(dict.fromkeys(m.group(0) for m in PLACEHOLDER.finditer(code)))


def safe(code: str, language: str | None) -> str:
    """A shell block with its placeholders as variables and a line saying to set them."""
    if (language or "").lower() not in SHELLS or not PLACEHOLDER.search(code):
        return code
    names = list(dict.fromkeys(variable(m.group(1)) for m in PLACEHOLDER.finditer(code)))
    body = PLACEHOLDER.sub(lambda m: "${" + variable(m.group(1)) + "}", code)
    return f"# set first: {' '.join(f'{n}=…' for n in names)}\n{body}"
