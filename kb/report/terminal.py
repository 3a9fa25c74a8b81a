"""Text for a terminal from strangers' data: only what should reach the screen does.

Log lines and case text can carry escape sequences that retitle the window, clear the screen
or move the cursor to overwrite what a report said. The reports' own colours are plain SGR
sequences (`ESC [ … m`); every other control character is shown as a visible `\\xNN` escape.

>>> safe_for_terminal("ok \\x1b[1mbold\\x1b[0m \\x1b]0;pwned\\x07 \\x1b[2J x\\ty\\n")
'ok \\x1b[1mbold\\x1b[0m \\\\x1b]0;pwned\\\\x07 \\\\x1b[2J x\\ty\\n'
"""

from __future__ import annotations

import re

_SGR = r"\x1b\[[0-9;]{0,16}m"
_UNSAFE = re.compile(rf"({_SGR})|[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def safe_for_terminal(text: str) -> str:
    return _UNSAFE.sub(lambda m: m.group(1) or f"\\x{ord(m.group(0)):02x}", text)
