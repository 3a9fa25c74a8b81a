"""Whether the user's words deny what they name: "nothing hung", "it does not hang", "没有卡住".

The vocabulary (`catalogue/words/`) says how people name an idea; a sentence that names it
to say it did not happen must not count as saying it. Shared by the words' own checks
(`unlike` samples) and by the matcher, so a sample and a user's note are read alike. Imports
only `re`: a warm `kb diagnose` reads it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# the clause the match sits in: a negator before a comma, "but" or a full stop speaks of
# something else ("it never crashed, but hangs at step 3")
_CLAUSE_END = re.compile(
    r"[.;:!?,，。；：！？]|\b(?:but|yet|though|although|however|instead)\b", re.I
)
# a negator among the last three words before the match: "does not hang", "nothing hung",
# "never seen it hang"; further back it is usually about something else ("not sure why it hangs")
_EN_NEGATOR = re.compile(r"(?:no|not|nothing|never|none|neither|nor|without|cannot|\w+n't)", re.I)
_WORDS_BEFORE = 3
# Chinese negators right before the words: 没有卡住, 没卡死, 并未挂起, 不会卡住, 未出现死锁
_ZH_NEGATED = re.compile(r"(?:没有|没|并未|未|不会|不再|无)(?:出现|发生|遇到|再)?\s*$")


def denied(text: str, start: int) -> bool:
    """Whether the words that match `text` at `start` are denied by what comes just before."""
    before = text[:start]
    ends = [m.end() for m in _CLAUSE_END.finditer(before)]
    if ends:
        before = before[ends[-1] :]
    if _ZH_NEGATED.search(before):
        return True
    words = re.findall(r"[\w']+", before)[-_WORDS_BEFORE:]
    return any(_EN_NEGATOR.fullmatch(w) for w in words)


# The vocabulary's groups whose ideas are events, which a sentence can deny: what went wrong,
# what the user tried, what changed. A setting (scale, phase, hardware...) is named the same
# with a negator: "it works on one machine but not across machines" still speaks of several.
DENIABLE_GROUPS = frozenset({"symptom", "tried", "ab"})


def deniable(word_ids: Iterable[str]) -> bool:
    """Whether every idea in `word_ids` (vocabulary ids, `group.name`) is one a denial undoes."""
    groups = {ident.partition(".")[0] for ident in word_ids}
    return bool(groups) and groups <= DENIABLE_GROUPS


def affirmed(program: Any, text: str) -> bool:
    """Whether `program` (an `re` or RE2 pattern: anything with `finditer`) finds the idea in
    `text` at least once without a denial just before it."""
    return any(not denied(text, m.start()) for m in program.finditer(text))
