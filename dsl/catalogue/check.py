"""What makes a catalogue wrong: duplicate ids, templates no engine runs, samples no wording
matches, a `decisive` message with several causes, causes and signatures that name nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator

from dsl import runtime
from dsl.catalogue import model as cm
from dsl.catalogue.negation import affirmed, deniable
from dsl.diagnostics import Diagnostic, Severity


def check_catalogue(catalogue: cm.Catalogue, case_ids: set[str] | None) -> Iterator[Diagnostic]:
    for message in catalogue.messages.values():
        yield from _message(message, case_ids)
        yield from _after(message, catalogue)
    for words in catalogue.words.values():
        yield from _words(words)
    for regression in catalogue.regressions.values():
        yield from _regression(regression, catalogue)


def _python_regex(pattern: str, ignore_case: bool = False) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error:
        return None


def _finds(pattern: re.Pattern[str], text: str) -> bool:
    """As the scanner would: its byte engine when the runtime is installed, else Python's."""
    scanned = runtime.scanner_matches(pattern.pattern, bool(pattern.flags & re.IGNORECASE), text)
    return scanned if scanned is not None else pattern.search(text) is not None


def _says(pattern: re.Pattern[str], text: str, words_id: str) -> bool:
    """Whether the user's `text` says the idea `pattern` names, as the matcher reads notes:
    found, and for an event not only where it is denied ("nothing hung")."""
    if not _finds(pattern, text):
        return False
    return not deniable([words_id]) or affirmed(pattern, text)


def _message(msg: cm.Message, case_ids: set[str] | None) -> Iterator[Diagnostic]:
    where = f"message `{msg.id}`"
    compiled: list[re.Pattern[str]] = []
    for wording in msg.wordings:
        problem = runtime.regex_problem(wording.regex, False)
        found = _python_regex(wording.regex)
        if problem is not None or found is None:
            yield Diagnostic.at(
                wording.span,
                f"a wording of {where} cannot be scanned: {problem or 'not a valid regex'}",
                code="bad-template",
            )
            continue
        compiled.append(found)
        if not wording.source and not msg.samples:
            yield Diagnostic.at(
                wording.span,
                f"a wording of {where} has no `source` and the message no `sample`",
                code="catalogue/unsourced",
                help='say where it comes from: `source "src/file.cc:123@v2.21.5-1"` or a doc URL',
            )
    known = set(msg.field_names())
    for name in msg.fields:
        if name not in known:
            yield Diagnostic.at(
                msg.span,
                f"{where} describes the field `{name}`, which no wording has",
                code="catalogue/unknown-field",
                help=f"fields of its wordings: {', '.join(sorted(known)) or 'none'}",
            )
    for sample in msg.samples:
        if compiled and not any(_finds(p, sample.text) for p in compiled):
            yield Diagnostic.at(
                sample.span,
                f"a sample of {where} matches none of its wordings",
                code="catalogue/sample-unmatched",
                help="fix the wording (or add the wording this release prints); never the sample",
            )
    if msg.role == "decisive" and (len(msg.causes) != 1 or msg.causes == [cm.UNKNOWN_CAUSE]):
        yield Diagnostic.at(
            msg.span,
            f"{where} is `decisive` but names {len(msg.causes)} causes",
            code="catalogue/decisive-causes",
            help="a decisive message names exactly one case; otherwise it is `shared`",
        )
    if case_ids is not None:
        for cause in msg.causes:
            if cause != cm.UNKNOWN_CAUSE and cause not in case_ids:
                yield Diagnostic.at(
                    msg.span,
                    f"{where} names the cause `{cause}`, which is no case",
                    code="unknown-case",
                    help="a case id from cases/, or `unknown`",
                )


def _after(msg: cm.Message, catalogue: cm.Catalogue) -> Iterator[Diagnostic]:
    """`after` joins lines of one emitter's one failure: each id must be another message of
    the same emitter (another emitter's line about it is a second observer, not the same one)."""
    for other_id in msg.after:
        other = catalogue.messages.get(other_id)
        if other_id == msg.id or other is None or other.emitter != msg.emitter:
            problem = (
                "itself"
                if other_id == msg.id
                else "no message"
                if other is None
                else f"a message of `{other.emitter}`, not `{msg.emitter}`"
            )
            yield Diagnostic.at(
                msg.span,
                f"message `{msg.id}` is printed after `{other_id}`, which is {problem}",
                code="catalogue/bad-after",
                help="`after` names other messages of the same emitter, printed on the same "
                "failure before this one",
            )


def _words(words: cm.Words) -> Iterator[Diagnostic]:
    where = f"words `{words.id}`"
    compiled: list[re.Pattern[str]] = []
    for regex in words.patterns():
        problem = runtime.regex_problem(regex.pattern, regex.ignore_case, False)
        found = _python_regex(regex.pattern, regex.ignore_case)
        if problem is not None or found is None:
            yield Diagnostic.at(
                regex.span,
                f"a phrasing of {where} cannot be scanned: {problem or 'not a valid regex'}",
                code="bad-regex",
            )
        else:
            compiled.append(found)
    for sample in words.samples:
        if compiled and not any(_says(p, sample, words.id) for p in compiled):
            yield Diagnostic.at(
                words.span,
                f"the sample {sample!r} of {where} matches none of its phrasings",
                code="catalogue/sample-unmatched",
            )
    for unlike in words.unlike:
        hits = [p.pattern for p in compiled if _says(p, unlike, words.id)]
        if hits:
            yield Diagnostic.at(
                words.span,
                f"{where} matches {unlike!r}, which it must not (its phrasing /{hits[0]}/)",
                code="catalogue/unlike-matched",
                help="tighten the phrasing; never drop the counter-example",
            )


def _regression(reg: cm.Regression, catalogue: cm.Catalogue) -> Iterator[Diagnostic]:
    where = f"regression `{reg.id}`"
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        SpecifierSet(reg.affected)
    except InvalidSpecifier:
        yield Diagnostic.at(
            reg.span,
            f"{where}: `affected` is not a version range: {reg.affected!r}",
            code="bad-value",
            help='write it as pip does: ">=2.19.0,<2.19.4"',
        )
    for ident in reg.signature:
        if ident not in catalogue.messages:
            yield Diagnostic.at(
                reg.span,
                f"{where} names the message `{ident}`, which the catalogue does not have",
                code="catalogue/unknown-message",
                severity=Severity.ERROR,
            )
    if not reg.source:
        yield Diagnostic.at(
            reg.span,
            f"{where} has no `source` (the release note or the fixing commit)",
            code="catalogue/unsourced",
        )
