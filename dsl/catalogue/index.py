"""The catalogue's messages as a flat index a report can read without parsing the catalogue.

When no case explains a folder, the report still says which known messages it holds, what
each means and which causes can print it. Parsing the catalogue takes about a second, so
the index (id, meaning, role, causes, one regex and the literal every wording contains) is
kept in the compile cache, keyed on the catalogue's fingerprint. The prefilter over all its
entries (`_Prefilter`, 0.03 s to build) is kept in the same file, with a hash of this module
so that a change to how it is built rebuilds it.
"""

from __future__ import annotations

import hashlib
import marshal
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from dsl.cache_place import cache_dir, write_cache_file
from dsl.catalogue import registry
from dsl.catalogue.template import TEMPLATE_VERSION

MIN_LITERAL = 4  # a shorter run is no use as a pre-filter
MAX_LINE = 2000  # characters of a line looked at: a message sits at a line's start, and a
# catalogue pattern run over a 200 KB line (a fuzzed log, a minified dump) can take seconds


# Plain dataclasses read from the cached JSON by hand: a warm `kb diagnose` reads the index
# and must not import pydantic for it (the file is our own cache; anything odd rebuilds it).


@dataclass(kw_only=True)
class IndexedMessage:
    id: str
    emitter: str
    severity: str
    role: str
    means: str
    causes: list[str] = field(default_factory=list)
    pattern: str  # every wording, one regex (fields as plain groups)
    literal: str = ""  # a plain run every wording shares, lowercased ("" = none)
    literals: list[str] = field(default_factory=list)  # each wording's own run ("" = none)
    after: list[str] = field(default_factory=list)  # printed on its way, in one failure


@dataclass(kw_only=True)
class StoredPrefilter:
    """`_Prefilter` of the whole `messages` list, as built from it."""

    code: str  # `_code_version()` of the module that built it
    by_gram: dict[str, list[int]] = field(default_factory=dict)
    always: list[int] = field(default_factory=list)


@dataclass(kw_only=True)
class MessageIndex:
    fingerprint: str
    messages: list[IndexedMessage] = field(default_factory=list)
    prefilter: StoredPrefilter | None = None

    def to_bytes(self) -> bytes:
        """A SHA-256 of the body, then the body: the fields, marshalled (it was JSON, ~7 ms of
        a warm `kb diagnose` to decode; marshal reads the same in a third of that, and the
        hash keeps a cut or corrupt file from being decoded at all)."""
        body = marshal.dumps(asdict(self))
        return _MAGIC + hashlib.sha256(body).hexdigest().encode() + b"\n" + body

    @classmethod
    def from_bytes(cls, data: bytes) -> MessageIndex:
        """The index as `to_bytes` wrote it; KeyError, TypeError or ValueError otherwise."""
        from dsl.cache_files import sealed_body

        body = sealed_body(data, _MAGIC)
        if body is None:
            raise ValueError("not an index this module wrote")
        try:
            raw = marshal.loads(body)
        except EOFError as exc:
            raise ValueError(str(exc)) from exc
        stored = raw.get("prefilter")
        return cls(
            fingerprint=str(raw["fingerprint"]),
            messages=[IndexedMessage(**m) for m in raw["messages"]],
            prefilter=StoredPrefilter(**stored) if stored is not None else None,
        )


INDEX_VERSION = 7  # bumped when the index is built differently (its cache name carries it)
_MAGIC = b"kb-message-index\n"  # 6: marshal under a hash, not JSON
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


def _required_runs(regex: str) -> set[str]:
    """The plain runs (lowercased, at least MIN_LITERAL long) that every match of `regex`
    holds, read from Python's own parse of it: a run inside an optional part or in one
    branch of an alternation is not required (reading the pattern's text, as this once did,
    took `function` from `(?:function|fu)?` and one branch's words for the whole: lines the
    pattern matches were then refused). A pattern Python cannot parse has none."""
    try:
        parsed = _sre()[0].parse(regex)
    except (re.error, RecursionError, OverflowError):
        return set()
    return {r for r in _sequence_runs(list(parsed)) if len(r) >= MIN_LITERAL}


def _sre() -> tuple[Any, Any]:
    """The standard library's regex parser and its opcodes (renamed in Python 3.11)."""
    try:
        import re._constants as constants
        import re._parser as parser
    except ImportError:  # Python 3.10
        import sre_constants as constants
        import sre_parse as parser
    return parser, constants


def _sequence_runs(items: list[tuple[Any, Any]]) -> set[str]:
    c = _sre()[1]
    repeats = tuple(
        getattr(c, name)
        for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
        if hasattr(c, name)
    )
    atomic = getattr(c, "ATOMIC_GROUP", None)
    out: set[str] = set()
    current: list[str] = []

    def flush() -> None:
        if current:
            out.add("".join(current).lower())
            current.clear()

    for op, arg in items:
        if op is c.LITERAL:
            current.append(chr(arg))
            continue
        flush()
        if op is c.SUBPATTERN:
            out |= _sequence_runs(list(arg[-1]))
        elif op in repeats:
            low, _high, inner = arg
            if low >= 1:
                out |= _sequence_runs(list(inner))
        elif atomic is not None and op is atomic:
            out |= _sequence_runs(list(arg))
        elif op is c.BRANCH:
            branches = [_sequence_runs(list(b)) for b in arg[1]]
            out |= _common(branches)
    flush()
    return out


def _common(groups: list[set[str]]) -> set[str]:
    """Runs of the first group found inside a run of every other (each is then present
    whichever group matched)."""
    if not groups:
        return set()
    return {r for r in groups[0] if all(any(r in o for o in other) for other in groups[1:])}


def _shared_literal(regexes: list[str]) -> str:
    """The longest plain run every match of every wording holds (so `literal in line` never
    misses)."""
    common = _common([_required_runs(r) for r in regexes])
    return max(common, key=lambda r: (len(r), r), default="")


def _literals(regexes: list[str]) -> list[str]:
    """Each wording's longest required run ("" for a wording with none)."""
    return [max(_required_runs(r), key=lambda x: (len(x), x), default="") for r in regexes]


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
                literals=_literals(required),
                after=list(message.after),
            )
        )
    out.prefilter = _stored(_build_prefilter(out.messages))
    return out


def _stored(built: _Prefilter) -> StoredPrefilter:
    return StoredPrefilter(
        code=_code_version(),
        by_gram={g: list(p) for g, p in built.by_gram.items()},
        always=sorted(built.always),
    )


@lru_cache(maxsize=1)
def _code_version() -> str:
    """Hash of this module's source: a stored prefilter is used only as this code builds it."""
    try:
        return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
    except OSError:
        return ""


_loaded: dict[str, MessageIndex] = {}  # this process's copy, per fingerprint


def message_index() -> MessageIndex:
    """The index for the installed catalogue: from the cache when its fingerprint matches.

    Read once per process and catalogue: the file is ~1 MB of JSON (0.3 s to validate), and
    the ladder, the reader and the report each ask for it. A command that never loads the
    cases (`kb evidence`) has installed no catalogue: importing `dsl.casefiles` installs the
    bundled one, as loading the cases would."""
    import dsl.casefiles  # noqa: F401

    fingerprint = registry.fingerprint()
    if fingerprint in _loaded:
        return _loaded[fingerprint]
    _loaded.clear()
    _loaded[fingerprint] = index = _read_or_build(fingerprint)
    stored = index.prefilter
    if stored is not None and stored.code and stored.code == _code_version():
        _prefilters.clear()
        _prefilters[id(index.messages)] = (
            index.messages,
            _Prefilter({g: tuple(p) for g, p in stored.by_gram.items()}, frozenset(stored.always)),
        )
    return index


def failure_of() -> dict[str, str]:
    """Each message joined by `after` to others, mapped to the one failure they print (the
    first id of the group, sorted): lines of one emitter's one failure are one fact. Messages
    with no `after` on either side are left out."""
    index = message_index()
    cached = _failures.get(index.fingerprint)
    if cached is not None:
        return cached
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for m in index.messages:
        for other in m.after:
            a, b = root(m.id), root(other)
            if a != b:
                parent[max(a, b)] = min(a, b)
    _failures.clear()
    _failures[index.fingerprint] = out = {x: root(x) for x in parent}
    return out


_failures: dict[str, dict[str, str]] = {}


def _read_or_build(fingerprint: str) -> MessageIndex:
    path = (
        cache_dir()
        / f"catalogue-index-v{INDEX_VERSION}.{TEMPLATE_VERSION}-{fingerprint[:32] or 'none'}.marshal"
    )
    try:
        cached = MessageIndex.from_bytes(path.read_bytes())
        if cached.fingerprint == fingerprint:
            if cached.prefilter is None or cached.prefilter.code != _code_version():
                # built by another version of this module: build the prefilter again, once
                cached.prefilter = _stored(_build_prefilter(cached.messages))
                write_cache_file(path, cached.to_bytes())
            return cached
    except (OSError, KeyError, TypeError, ValueError, AttributeError):
        pass
    index = build()
    write_cache_file(path, index.to_bytes())
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


GRAM = 4  # == MIN_LITERAL: every literal holds at least one


@dataclass(frozen=True)
class _Prefilter:
    """Which entries a line can hold, from its 4-character runs: each entry is filed under
    the rarest 4 characters of each wording's required run, so a line is looked up once per position instead of
    tested against every entry (1,060 substring tests a line; the count grows with the
    catalogue, the lookups only with the line)."""

    by_gram: dict[str, tuple[int, ...]]
    always: frozenset[int]  # entries without a literal: their regex runs on every line


def _grams(text: str) -> set[str]:
    return {text[i : i + GRAM] for i in range(len(text) - GRAM + 1)}


def _build_prefilter(entries: list[IndexedMessage]) -> _Prefilter:
    literals = [e.literals or [e.literal] for e in entries]
    grams = [[_grams(lit) if len(lit) >= GRAM else set() for lit in lits] for lits in literals]
    counts = Counter(g for per_entry in grams for found in per_entry for g in found)
    filed: dict[str, set[int]] = {}
    always: set[int] = set()
    for pos, per_entry in enumerate(grams):
        if not per_entry or not all(per_entry):  # a wording with no run: no gram to file under
            always.add(pos)
            continue
        for found in per_entry:  # whichever wording the line holds, its rarest run is there
            rarest = min(found, key=lambda g: (counts[g], g))
            filed.setdefault(rarest, set()).add(pos)
    return _Prefilter({g: tuple(sorted(p)) for g, p in filed.items()}, frozenset(always))


# per entries list (held, so its id cannot be reused while cached): callers pass the index's
# list or a filtered copy made once per report
_prefilters: dict[int, tuple[list[IndexedMessage], _Prefilter]] = {}


def _prefilter(entries: list[IndexedMessage]) -> _Prefilter:
    held = _prefilters.get(id(entries))
    if held is not None and held[0] is entries:
        return held[1]
    if len(_prefilters) >= 8:
        _prefilters.clear()
    built = _build_prefilter(entries)
    _prefilters[id(entries)] = (entries, built)
    return built


def messages_in(text: str, entries: list[IndexedMessage]) -> list[IndexedMessage]:
    """The catalogued messages a line holds (its first MAX_LINE characters), in entry order."""
    text = text[:MAX_LINE]
    lowered = text.lower()
    prefilter = _prefilter(entries)
    candidates = set(prefilter.always)
    by_gram = prefilter.by_gram
    for i in range(len(lowered) - GRAM + 1):
        filed = by_gram.get(lowered[i : i + GRAM])
        if filed is not None:
            candidates.update(filed)
    return [entries[p] for p in sorted(candidates) if _matches(entries[p], text, lowered)]
