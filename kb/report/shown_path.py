"""The evidence path as a report may show it: the reader's `shown_name` escapes (a newline
or an ANSI escape in a folder's name would forge or hide report lines, an undecodable byte
would make JSON invalid UTF-8), and shell-quoted inside a command the user may paste.

>>> shown_in("Nothing could be read in ev\\nMost likely: x", "ev\\nMost likely: x")
'Nothing could be read in ev\\\\x0aMost likely: x'
>>> shown_command("kb diagnose -v --evidence my job", "my job")
"kb diagnose -v --evidence 'my job'"
"""

from __future__ import annotations

import shlex

from kb.evidence.inputs import shown_name


def shown_in(text: str, root: str) -> str:
    """`text` with the evidence path in it escaped."""
    return text.replace(root, shown_name(root)) if root else text


def shown_command(command: str, root: str) -> str:
    """A suggested command with the evidence path escaped and quoted for the shell."""
    if not root or root not in command:
        return command
    shown = shown_name(root)
    return command.replace(root, shlex.quote(shown) if shlex.quote(shown) != shown else shown)
