"""Linear-time regex search on short strings (device names, frames, env values).

Case patterns come from strangers, so even these small matches use RE2, never `re`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import re2


@lru_cache(maxsize=1024)
def _compiled(pattern: str, ignore_case: bool) -> Any:
    options = re2.Options()
    options.case_sensitive = not ignore_case
    options.log_errors = False
    return re2.compile(pattern, options)


def search(pattern: str, text: str, ignore_case: bool = False) -> bool:
    """True when `pattern` occurs in `text`; an uncompilable pattern never matches."""
    try:
        return _compiled(pattern, ignore_case).search(text) is not None
    except re2.error:
        return False
