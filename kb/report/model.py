"""One report, built once from a diagnosis, that the text, markdown and JSON renderers share.

The matcher's verdicts carry everything, including what a reader should not have to decode
(scores, the condition language, `rank -1`, a FALSE `require` whose evidence was never handed
over). This module decides what a person is told: the answer and how sure, one line on why,
the first fix that fits the platform and was not already tried, the one next command, and
below that the detail: each evidence line once, the condition in words, what would confirm
the case apart from what could rule it out, and only what can be collected under "collect".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dsl.choices import LOG_KINDS, Role
from dsl.explain import describe_query
from kb.evidence.facts import EvidenceLine
from kb.match.diagnose import Diagnosis
from kb.match.results import Missing, Truth, Verdict
from kb.report import platform as plat
from kb.report.guidance import next_command, ranking_sentence
from kb.report.shapes import Ask, Candidate, Fix, FixStep, Need, Report, Shown
from kb.report.tried import tried_by
from kb.site.describe import expr as expr_words
from kb.site.describe import refs

if TYPE_CHECKING:  # a warm run reports from the snapshot's records (kb.cache.records)
    from dsl import model as m
    from dsl.compiler import KnowledgeBase

CLAUSE_WORDS = {
    "require": "needs",
    "likely": "likely from",
    "possible": "possible from",
    "support": "more likely with",
    "rule_out": "ruled out by",
}
STATE_WORDS = {"true": "seen", "false": "not seen", "unknown": "evidence not handed over"}
NOTES_ONLY = ["notes"]


def rank_label(rank: int | str | None) -> str:
    """`rank 3`, or `no rank` for the matcher's own markers (None, -1, "unknown")."""
    if rank is None or str(rank) in ("-1", "unknown", ""):
        return "no rank"
    return f"rank {rank}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class _Builder:
    def __init__(self, diagnosis: Diagnosis, kb: KnowledgeBase, facts: Any) -> None:
        self.d = diagnosis
        self.kb = kb
        self.facts = facts
        self.notes: list[EvidenceLine] = list(getattr(facts, "notes", []) or [])
        texts = [ln.text for v in diagnosis.ranked for _, ln in v.evidence]
        texts += [ln.text for lines in diagnosis.suspicious.values() for ln in lines]
        self.platform = plat.detect(texts, diagnosis.evidence.get("files", {}), facts)

    # ----------------------------------------------------------------- queries in words
    def query(self, case_id: str, name: str) -> m.Query | None:
        compiled = self.kb.get(case_id)
        return compiled.case.query(name) if compiled is not None else None

    def words(self, case_id: str, name: str) -> str:
        q = self.query(case_id, name)
        if q is None:
            return name
        return q.description.en if q.description else describe_query(q)

    def notes_only(self, case_id: str, name: str) -> bool:
        q = self.query(case_id, name)
        return q is not None and q.kind in LOG_KINDS and q.sources == NOTES_ONLY  # type: ignore[attr-defined]

    # ----------------------------------------------------------------- one candidate
    def needs(self, v: Verdict) -> list[Need]:
        compiled = self.kb.get(v.id)
        if compiled is None:
            return []
        out = []
        for clause, result in zip(compiled.case.condition.clauses, v.clauses, strict=False):
            text = expr_words(clause.expr, leaf=lambda name: self.words(v.id, name))
            out.append(Need(clause.role.value, str(text), result.truth.value))
        return out

    def weights(self, case_id: str) -> dict[str, int]:
        """Proof first, then the signature, then supporting signs; the user's words last."""
        compiled = self.kb.get(case_id)
        if compiled is None:
            return {}
        order = {"require": 0, "likely": 1, "possible": 2, "support": 3}
        out: dict[str, int] = {}
        for c in compiled.case.condition.clauses:
            for name in refs(c.expr):
                rank = order.get(c.role.value, 9) + (10 if self.notes_only(case_id, name) else 0)
                out[name] = min(out.get(name, 99), rank)
        return out

    def shown(self, v: Verdict) -> list[Shown]:
        by_line: dict[tuple[str, int], Shown] = {}
        sizes: dict[str, int] = {}
        for name, _ in v.evidence:
            sizes[name] = sizes.get(name, 0) + 1
        weight = self.weights(v.id)
        ordered = sorted(v.evidence, key=lambda item: (weight.get(item[0], 9), sizes[item[0]]))
        for name, ln in ordered:
            what = self.words(v.id, name)
            item = by_line.setdefault((ln.file, ln.line), Shown(ln, []))
            if what not in item.shows:
                item.shows.append(what)
        return list(by_line.values())

    def ask(self, case_id: str, miss: Missing) -> Ask | None:
        commands = [plat.fit_command(c, self.platform) for c in miss.commands]
        commands = [c for c in commands if c.strip()]
        if miss.commands and not commands:
            return None  # every way to collect it is for the other platform
        if plat.foreign(miss.description, self.platform) and not commands:
            return None
        note = miss.note if miss.note and "matching line" not in miss.note else None
        return Ask(miss.description, commands, note, list(miss.cases) or [case_id])

    def not_seen(self, v: Verdict) -> tuple[list[Missing], list[str]]:
        """A FALSE `require` with no line against it was not seen, which is not a sign
        against: its evidence (a kernel log, say) may simply not be in the folder."""
        with_lines = {name for name, _ in v.against}
        compiled = self.kb.get(v.id)
        rule_out_names: set[str] = set()  # queries of a rule_out clause that holds
        if compiled is not None:
            for c, result in zip(compiled.case.condition.clauses, v.clauses, strict=False):
                if c.role is Role.RULING_OUT and result.truth is Truth.TRUE:
                    rule_out_names |= refs(c.expr)
        missing, against = [], []
        for reason in v.against_reasons:
            name = reason.partition(": ")[0]
            if name in with_lines or name in rule_out_names:
                where = [ln.where for n, ln in v.against if n == name][:2]
                at = f" ({', '.join(where)})" if where else ""
                against.append(f"{self.words(v.id, name)}{at}")
                continue
            q = self.query(v.id, name)
            if q is None:
                continue
            missing.append(
                Missing(
                    query=name,
                    description=self.words(v.id, name),
                    commands=[c.code for c in q.collect],
                    note=q.collect_note.en if q.collect_note else None,
                    confirms=True,
                )
            )
        return missing, against

    def fixes(self, case_id: str) -> list[Fix]:
        compiled = self.kb.get(case_id)
        if compiled is None:
            return []
        out = []
        for remedy in compiled.case.remedies:
            steps = []
            for s in remedy.steps:
                raw = [c.code for c in s.commands]
                fitted = [plat.fit_command(c, self.platform) for c in raw]
                fitted = [c for c in fitted if c.strip()]
                verify_commands = [
                    c for c in (plat.fit_command(c.code, self.platform) for c in s.verify_commands)
                ]
                steps.append(
                    FixStep(
                        remedy=remedy.title.en,
                        title=s.title.en,
                        why=s.why.en if s.why else None,
                        commands=fitted,
                        verify=s.verify.en if s.verify else None,
                        verify_commands=[c for c in verify_commands if c.strip()],
                        tried=tried_by(raw, self.notes),
                        other_platform=(bool(raw) and not fitted)
                        or plat.foreign(s.title.en, self.platform),
                    )
                )
            out.append(Fix(remedy.title.en, steps))
        return out

    def candidate(self, v: Verdict) -> Candidate:
        not_seen, against = self.not_seen(v)
        confirm: list[Ask] = []
        rule_out: list[Ask] = []
        helps: list[Ask] = []
        ask_user: list[str] = []
        seen_queries: set[str] = set()
        for miss in [*v.missing, *not_seen]:
            if miss.query in seen_queries:
                continue
            seen_queries.add(miss.query)
            if self.notes_only(v.id, miss.query):
                ask_user.append(miss.description)
                continue
            item = self.ask(v.id, miss)
            if item is None:
                continue
            if miss.confirms:
                confirm.append(item)
            else:
                (rule_out if miss.only_against else helps).append(item)
        culprit = v.culprit_rank if v.culprit_rank is not None and v.culprit_rank >= 0 else None
        return Candidate(
            verdict=v,
            culprit=culprit,
            needs=self.needs(v),
            shown=self.shown(v),
            against=against,
            confirm=confirm,
            rule_out=rule_out,
            helps=helps,
            ask_user=ask_user,
            fixes=self.fixes(v.id),
        )

    # ----------------------------------------------------------------- the whole report
    def next_steps(self) -> list[Ask]:
        out = []
        for miss in self.d.next_steps:
            owner = miss.cases[0] if miss.cases else ""
            if owner and self.notes_only(owner, miss.query):
                continue
            item = self.ask(owner, miss)
            if item is not None:
                item.cases = list(miss.cases)
                out.append(item)
        return out

    def lines_without_repeats(
        self,
    ) -> tuple[list[tuple[str, EvidenceLine]], list[tuple[str, EvidenceLine]]]:
        # a line a possible case already shows as its evidence is not repeated below it
        shown: set[tuple[str, int]] = {
            (ln.file, ln.line) for v in self.d.possible for _, ln in v.evidence
        }
        suspicious = []
        for rank, lines in self.d.suspicious.items():
            for ln in lines:
                if (ln.file, ln.line) not in shown:
                    shown.add((ln.file, ln.line))
                    suspicious.append((rank_label(rank), ln))
        progress = []
        notes = {(ln.file, ln.line) for ln in self.notes}
        for rank, ln in self.d.last_progress.items():
            key = (ln.file, ln.line)
            if key in shown or key in notes or ln.source == "notes":
                continue  # the user's words are not a training step
            shown.add(key)
            progress.append((rank_label(rank), ln))
        return suspicious, progress

    def read(self) -> list[str]:
        ev = self.d.evidence
        files: dict[str, list[dict[str, Any]]] = ev.get("files", {})
        total = sum(len(v) for v in files.values())
        if not total:
            return ["no files"]
        kinds = ", ".join(f"{len(v)} {k}" for k, v in sorted(files.items()))
        out = [f"{_plural(total, 'file')} ({kinds})"]
        ranks = ev.get("ranks") or []
        if ranks:
            world = ev.get("world_size")
            of = f" of a world of {world}" if world else ""
            out.append(f"ranks {', '.join(str(r) for r in ranks)}{of}")
        skipped = ev.get("skipped") or []
        if skipped:
            out.append(f"{_plural(len(skipped), 'file')} skipped (kb diagnose -v says why)")
        devices = getattr(self.facts, "devices", None)
        if devices:
            listed = sorted({d.model for d in devices if not d.reported})
            said = sorted({d.model for d in devices if d.reported} - set(listed))
            if listed:
                out.append("devices: " + ", ".join(listed))
            if said:
                out.append("devices named in your notes: " + ", ".join(said))
        elif ev.get("devices"):
            out.append("devices: " + ", ".join(ev["devices"]))
        return out


def _first_fix(candidate: Candidate | None) -> Fix | None:
    """The first remedy with a step that fits the platform and was not already tried, with
    just those steps."""
    if candidate is None:
        return None
    for fix in candidate.fixes:
        steps = [s for s in fix.steps if not s.other_platform and s.tried is None]
        if steps:
            return Fix(fix.title, steps)
    return None


def _why(c: Candidate) -> str:
    """The one line on why: where the most specific sign was seen, and what it shows."""
    if not c.shown:
        return "its signs hold"
    item = c.shown[0]
    return f"{item.line.where} shows {item.shows[0]}"


def build(diagnosis: Diagnosis, kb: KnowledgeBase, facts: Any = None) -> Report:
    b = _Builder(diagnosis, kb, facts)
    candidates = [b.candidate(v) for v in diagnosis.matches]
    possible = [b.candidate(v) for v in diagnosis.possible]
    suspicious, progress = b.lines_without_repeats()
    near = []
    for v in diagnosis.near_misses:
        c = b.candidate(v)
        missing = [n.words for n in c.needs if n.role == "require" and n.state != "true"]
        ruled = [n.words for n in c.needs if n.role == "rule_out" and n.state == "true"]
        reasons = []
        if missing:
            reasons.append("missing: " + "; ".join(missing))
        if ruled:
            reasons.append("ruled out by: " + "; ".join(ruled))
        near.append((v.id, ", ".join(reasons)))
    read = b.read()
    empty = not diagnosis.evidence.get("files")
    best = next(iter(candidates or possible), None)
    next_steps = b.next_steps() if not candidates else []
    root = diagnosis.evidence_root or "."
    skipped = [(str(s.get("path", "?")), str(s.get("reason", "")))
               for s in diagnosis.evidence.get("skipped") or []]  # fmt: skip
    if empty:
        state = "empty"
        answer = f"Nothing to diagnose: no file was read in {root}"
        why = "the folder is empty"
        if skipped:
            answer = f"Nothing could be read in {root}: every file was skipped"
            why = "; ".join(f"{path}: {reason}" for path, reason in skipped[:3])
    elif candidates:
        state = "match"
        c = candidates[0]
        rank = f", culprit {rank_label(c.culprit)}" if c.culprit is not None else ""
        answer = f"{c.verdict.id}: {c.level_words}{rank}"
        why = _why(c)
    elif possible:
        state = "possible"
        answer = f"No case is confirmed or likely; possible: {possible[0].verdict.id}"
        why = _why(possible[0])
    else:
        state = "none"
        answer = "No known case matches this evidence"
        why = "none of the known cases' signs were found in what was read"
        if not suspicious and progress:
            rank, ln = progress[-1]
            why = f"no error or warning was read; the last progress line ({rank}) is {ln.where}"
    first_fix = _first_fix(best) if state != "empty" else None
    command, next_why = next_command(state, best, next_steps, first_fix, root)
    distinctions = [f"{d.first} vs {d.second}: {d.explanation}" for d in diagnosis.distinctions]
    return Report(
        root=root,
        state=state,
        platform=b.platform,
        answer=answer,
        why=why,
        candidates=candidates,
        possible=possible,
        near=near,
        first_fix=first_fix,
        next_command=command,
        next_why=next_why,
        next_steps=next_steps,
        suspicious=suspicious,
        progress=progress,
        read=read,
        distinctions=distinctions,
        ranking=ranking_sentence(diagnosis.ranked, b.words),
        skipped=skipped if empty else [],
        known_messages=list(diagnosis.known_messages),
    )
