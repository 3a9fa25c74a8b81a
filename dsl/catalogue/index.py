"""The catalogue's messages as a flat index a report can read without parsing the catalogue.

When no case explains a folder, the report still says which known messages it holds, what
each means and which causes can print it. Parsing the catalogue takes about a second, so
the index (id, meaning, role, causes, one regex and the literal every wording contains) is
kept in the compile cache, keyed on the catalogue's fingerprint.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pydantic import BaseModel, Field, ValidationError

from dsl.catalogue import registry
from dsl.catalogue.template import TEMPLATE_VERSION
from dsl.compiler import cache_dir, write_cache_file

MIN_LITERAL = 4  # a shorter run is no use as a pre-filter
MAX_LINE = 2000  # characters of a line looked at: a message sits at a line's start, and a
# catalogue pattern run over a 200 KB line (a fuzzed log, a minified dump) can take seconds


class IndexedMessage(BaseModel):
    id: str
    emitter: str
    severity: str
    role: str
    means: str
    causes: list[str] = Field(default_factory=list)
    pattern: str  # every wording, one regex (fields as plain groups)
    literal: str = ""  # a plain run every wording shares, lowercased ("" = none)


class MessageIndex(BaseModel):
    fingerprint: str
    messages: list[IndexedMessage] = Field(default_factory=list)


INDEX_VERSION = 3  # bumped when the index is built differently (its cache name carries it)
_LEADING_ANY = re.compile(r"^(?:\(\?:\.\*\??\)|\.\*\??)+")
# a leading text field that a line may also start without (template.py's line-start cut)
_LEADING_OPTIONAL_ANY = "(?:(?:.*?)\\s+|^[ \\t]*)"


def _ungrouped(regex: str) -> str:
    """Named groups made plain, and a leading `.*?` field dropped: the index only asks whether
    a line holds the message, and a leading lazy dot makes every search quadratic in the
    line's length (seconds on a 2,000-character line)."""
    plain = re.sub(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>", "(?:", regex)
    if plain.startswith(_LEADING_OPTIONAL_ANY):  # blanks or the line's start, as before
        plain = "(?:\\s+|^[ \\t]*)" + plain[len(_LEADING_OPTIONAL_ANY) :]
    return _LEADING_ANY.sub("", plain)


def _runs(regex: str) -> set[str]:
    chunks = re.split(r"\\[A-Za-z]|\(\?[a-zA-Z:]+\)?|\[[^\]]*\]|[\[\](){}*+?|^$.\\]", regex)
    return {c.strip().lower() for c in chunks if len(c.strip()) >= MIN_LITERAL}


def _shared_literal(regexes: list[str]) -> str:
    """The longest plain run found in every wording (so `literal in line` never misses)."""
    if not regexes:
        return ""
    common = _runs(regexes[0])
    for regex in regexes[1:]:
        common = {r for r in common if any(r in other for other in _runs(regex))}
    return max(common, key=len, default="")


def build() -> MessageIndex:
    catalogue = registry.current()
    out = MessageIndex(fingerprint=catalogue.fingerprint)
    for message in catalogue.messages.values():
        regexes = [_ungrouped(w.regex) for w in message.wordings if w.regex]
        # the prefilter's literal comes from what every match holds: a template's start (a
        # line cut at the margin lacks the rest), a pattern whole
        required = [_ungrouped(w.required or w.regex) for w in message.wordings if w.regex]
        if not regexes:
            continue
        out.messages.append(
            IndexedMessage(
                id=message.id,
                emitter=message.emitter,
                severity=message.severity,
                role=message.role,
                means=message.means.en,
                causes=list(message.causes),
                pattern="|".join(f"(?:{r})" for r in regexes),
                literal=_shared_literal(required),
            )
        )
    return out


_loaded: dict[str, MessageIndex] = {}  # this process's copy, per fingerprint


def message_index() -> MessageIndex:
    """The index for the installed catalogue: from the cache when its fingerprint matches.

    Read once per process and catalogue: the file is ~1 MB of JSON (0.3 s to validate), and
    the ladder, the reader and the report each ask for it."""
    fingerprint = registry.fingerprint()
    if fingerprint in _loaded:
        return _loaded[fingerprint]
    _loaded.clear()
    _loaded[fingerprint] = index = _read_or_build(fingerprint)
    return index


def _read_or_build(fingerprint: str) -> MessageIndex:
    path = (
        cache_dir()
        / f"catalogue-index-v{INDEX_VERSION}.{TEMPLATE_VERSION}-{fingerprint[:32] or 'none'}.json"
    )
    try:
        cached = MessageIndex.model_validate_json(path.read_bytes())
        if cached.fingerprint == fingerprint:
            return cached
    except (OSError, ValidationError, ValueError):
        pass
    index = build()
    write_cache_file(path, index.model_dump_json().encode("utf-8"))
    return index


@lru_cache(maxsize=2048)
def compiled(pattern: str) -> re.Pattern[str] | None:
    """An index pattern, compiled once (per machine: `dsl.regex_cache`); None for RE2 syntax
    Python lacks."""
    from dsl import regex_cache as regex

    try:
        return regex.compile(pattern)
    except re.error:
        return None


def _matches(entry: IndexedMessage, text: str, lowered: str) -> bool:
    if entry.literal and entry.literal not in lowered:
        return False
    found = compiled(entry.pattern)
    return found is not None and found.search(text) is not None


def messages_in(text: str, entries: list[IndexedMessage]) -> list[IndexedMessage]:
    """The catalogued messages a line holds (its first MAX_LINE characters)."""
    text = text[:MAX_LINE]
    lowered = text.lower()
    return [e for e in entries if _matches(e, text, lowered)]
