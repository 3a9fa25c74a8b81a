"""A pattern cut down to the top-level alternatives a small text can hold, matching there
exactly as the whole pattern does.

The user's notes are matched with RE2 programs built on each call (they cannot be saved):
each pattern whose factor (`kb.scan.literals`) the text holds is compiled, then searched,
and RE2 builds its DFA while searching. Most of those patterns are long alternations of
phrasings (`multi[- ]?GPU|several GPUs|… 8 x A100|多卡|…`) of which a notes file holds the
words of one or two: compiling and searching only those alternatives cost about a third of
the whole pattern's on the bundled example (about 25 ms of a warm `kb diagnose`).

Why the matches do not change: `A|B|C` matches, leftmost-first, the first alternative that
matches at the leftmost position where any does. An alternative whose factor the text lacks
matches nowhere in it (the factor is what every match holds), so it never takes part in
that choice; leaving it out leaves every match, and so every end offset the scan reports,
as it was. The rewrites the engine makes (`$` before CRLF, `.*$` after a trailing
repetition) are made the same way: the first alternative by alternative, the second decided
on the whole pattern as before (`parts_of`).
"""

from __future__ import annotations

from typing import Any

from kb.scan import literals, syntax

# (the whole pattern gets `.*$`, [(alternative with `$` rewritten, its factor or None), ...])
Parts = tuple[bool, list[tuple[str, Any]]]


def parts_of(regex: str) -> Parts | None:
    """The alternatives `regex` can be cut into, or None when it is one (or cannot be cut).

    >>> parts_of("stuck at eval|hang(s|ing)? at step [0-9]+")
    (True, [('stuck at eval', 'stuck at eval'), ('hang(s|ing)? at step [0-9]+', ['all', 'hang', ' at step '])])
    >>> parts_of("(?i)foo|bar") is None  # a flag group reaches across `|`
    True
    """
    alternatives = syntax.alternatives(regex)
    if len(alternatives) < 2:
        return None
    rewritten = [syntax.crlf_dollar(a) for a in alternatives]
    whole = syntax.crlf_dollar(regex)
    if "|".join(rewritten) != whole:
        return None  # the rewrite did not go alternative by alternative: keep the pattern
    wrapped = syntax.to_line_end(whole) != whole
    return wrapped, [(a, literals.factor(a)) for a in rewritten]


def narrowed(parts: Parts, folded: str) -> str | None:
    """The engine expression of the pattern with only the alternatives `folded` (a text as
    `literals.fold` gives it) may hold, or None when it holds none (no match there).

    >>> parts = parts_of("stuck at eval|hang(s|ing)? at step [0-9]+")
    >>> narrowed(parts, "we hang at step 5"), narrowed(parts, "all fine")
    ('(?:hang(s|ing)? at step [0-9]+).*$', None)
    """
    wrapped, alternatives = parts
    kept = [a for a, factor in alternatives if literals.may_occur(factor, folded)]
    if not kept:
        return None
    body = "|".join(kept)
    return f"(?:{body}).*$" if wrapped else body


def well_formed(parts: Any) -> bool:
    """Parts as `parts_of` writes them, read back from JSON (a record on disk is checked)."""
    return (
        isinstance(parts, list | tuple)
        and len(parts) == 2
        and isinstance(parts[0], bool)
        and isinstance(parts[1], list)
        and len(parts[1]) >= 2
        and all(
            isinstance(p, list | tuple)
            and len(p) == 2
            and isinstance(p[0], str)
            and p[0]
            and (p[1] is None or literals.well_formed(p[1]))
            for p in parts[1]
        )
    )
