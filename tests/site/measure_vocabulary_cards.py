"""Would a card "the case that reads these words" help Chinese prose in the search box?

Measured before building it (issue 26, round 4): every Chinese line the search test types
(`kbsite_lines`: reporters' notes and the cases' own summaries) is read through the
vocabulary (`catalogue/words/`, each idea's `zh` and `en` phrasings the browser could run)
and the cases whose `said` evidence reads an idea found are ranked, as a card above the
results would list them. A card helps a line when its first case is the line's case and
hurts when it is not (it pushes the right result down). Prints the counts per rule:

    .venv/bin/python tests/site/measure_vocabulary_cards.py
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from kbsite_lines import Probe, probes, summary_probes

from dsl.api import load_cases
from dsl.catalogue.load import load_default
from kb.site import paste

Rule = Callable[[str, int, int], float]  # (idea, cases reading it, clause weight) -> score


def main() -> int:
    catalogue = load_default()
    cases = load_cases(with_env=False).cases
    reads: dict[str, dict[str, int]] = {}
    for case in cases:
        weight = paste.weights(case)
        for q in case.queries:
            if q.name in weight and q.kind == "said":
                for idea in getattr(q, "words", []):
                    mine = reads.setdefault(case.id, {})
                    mine[idea] = max(mine.get(idea, -99), weight[q.name])
    readers: dict[str, int] = {}
    for ideas in reads.values():
        for idea in ideas:
            readers[idea] = readers.get(idea, 0) + 1
    patterns = {
        idea: [
            re.compile(r.pattern, re.I if r.ignore_case else 0)
            for r in [*words.zh, *words.en]
            if paste.browser_safe(r.pattern)
        ]
        for idea, words in catalogue.words.items()
    }
    n = len(cases)
    rules: dict[str, Rule] = {
        "every idea, weight x ln(1 + cases / readers)": lambda i, d, w: w * math.log(1 + n / d),
        "ideas read by one case only": lambda i, d, w: w if d == 1 else 0,
        "symptom ideas read by one case, clause weight >= 2": lambda i, d, w: (
            w if d == 1 and w >= 2 and i.startswith("symptom.") else 0
        ),
    }
    lines: list[Probe] = [p for p in probes() if p.chinese] + summary_probes()
    print(f"{len(lines)} Chinese lines ({sum(p.notes for p in lines)} from reporters' notes)")
    for name, rule in rules.items():
        helps = hurts = notes_helped = 0
        for probe in lines:
            found = {i for i, ps in patterns.items() if any(p.search(probe.line) for p in ps)}
            scores: dict[str, float] = {}
            for case_id, ideas in reads.items():
                total = sum(rule(i, readers[i], ideas[i]) for i in found & ideas.keys())
                if total > 0:
                    scores[case_id] = total
            if not scores:
                continue
            first = min(scores, key=lambda c: (-scores[c], c))
            if first in probe.cases:
                helps += 1
                notes_helped += probe.notes
            else:
                hurts += 1
        print(f"- {name}: right first {helps} ({notes_helped} of them notes), wrong first {hurts}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
