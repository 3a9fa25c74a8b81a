"""First-seen figures of a held-out set: how the tool did on each incident the first time.

    python scripts/heldout_figures.py heldout/issue-24
    python scripts/heldout_figures.py heldout/issue-24 --now

Reads the `first_seen` each incident.yaml carries (written once by `python -m kb.intake` /
`kb.first_seen` before any change), never re-diagnoses. `--now` diagnoses each incident
with the code checked out instead: how a change does on incidents no case was fitted to
(still not a first-seen figure once the change was made knowing how they failed).
"""

import glob
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
NOW = "--now" in sys.argv
ROOT = Path(ARGS[0] if ARGS else "heldout/issue-24").resolve()
from kb.incidents import read_meta  # noqa: E402  (after the path insert)


def diagnosed_now(folder: Path) -> list[tuple[str, str]]:
    from dsl.compiler import load_knowledge_base
    from kb.match.diagnose import diagnose_bundle, read_bundle

    kb = load_knowledge_base(with_env=False)
    d = diagnose_bundle(kb, read_bundle(kb, str(folder), workers=1))
    return [(v.id, v.level) for v in d.ranked]


hits = top1 = top1s = top3 = silent_hit = 0
nm = nm_strong = nm_conf = 0
conf = conf_wrong = 0
likely = likely_wrong = 0
rows = []
for y in sorted(glob.glob(str(ROOT / "*" / "*" / "incident.yaml"))):
    m = read_meta(Path(y).parent)
    ranked = diagnosed_now(Path(y).parent) if NOW else m.first_seen.ranked
    first = ranked[0] if ranked else None
    exp = m.expected
    nmo = m.near_miss_of if m.near_miss_of not in (None, "none") else None
    if first and first[1] == "confirmed":
        conf += 1
        conf_wrong += first[0] != exp
    if first and first[1] == "likely":
        likely += 1
        likely_wrong += first[0] != exp
    if exp:
        hits += 1
        ok = first is not None and first[0] == exp
        top1 += ok
        top1s += ok and first[1] in ("confirmed", "likely")
        top3 += exp in [c for c, _ in ranked[:3]]
        silent_hit += not ranked
    if nmo:
        nm += 1
        lv = next((lv_ for c, lv_ in ranked if c == nmo), "none")
        nm_strong += lv in ("confirmed", "likely")
        nm_conf += lv == "confirmed"
    rows.append((Path(y).parent.relative_to(ROOT), exp, nmo, ranked[:2]))
print(
    f"incidents {len(rows)}; hits {hits}: top1 {top1} ({top1 / hits:.1%}), at likely+ {top1s} ({top1s / hits:.1%}), top3 {top3} ({top3 / hits:.1%}), nothing named {silent_hit} ({silent_hit / hits:.1%})"
)
print(f"near misses {nm}: at likely+ {nm_strong} ({nm_strong / nm:.1%}), confirmed {nm_conf}")
print(f"answers at confirmed {conf}, wrong {conf_wrong}; at likely {likely}, wrong {likely_wrong}")
for r in rows:
    if (r[1] and (not r[3] or r[3][0][0] != r[1])) or (
        r[2] and any(c == r[2] and lv_ in ("confirmed", "likely") for c, lv_ in r[3])
    ):
        print(" miss:", r)
