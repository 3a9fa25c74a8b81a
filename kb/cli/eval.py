"""`kb eval`: how well the cases name the cause of the real incidents among their fixtures.

Prints top-1 and top-3 accuracy, the near-miss false-positive rate at each level, a table per
case and the confusion table; `--format json` for CI. `--check` compares with the floors kept
in pyproject.toml (`[tool.kb.eval]`): exit 1 when a figure falls below its floor.
Exit 0 otherwise; 2 for a usage error. `-q` prints only the incidents the cases got wrong and
one summary line; `-v` adds one line per incident to the full report.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kb.cli.common import add_cases_option, load_kb
from kb.cli.options import add_verbosity_options, exit_status

if TYPE_CHECKING:  # imported where used: `kb --help` must not pay for the evaluation
    from kb.evaluation import Evaluation, IncidentResult

FLOOR_FILE = Path(__file__).resolve().parents[2] / "pyproject.toml"  # beside cases/
# figure -> whether it must stay at or above (True) or at or below (False) its bound
BOUNDS = {
    "top1": True,
    "top3": True,
    "top1_likely_or_better": True,
    "near_miss_likely_or_better": False,
    "near_miss_confirmed": False,
}
EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
EXIT_STATUS = exit_status(
    (EXIT_OK, "measured (with --check: every figure within its bound)"),
    (EXIT_PROBLEMS, "an incident's metadata is broken, or (--check) a figure is past its bound"),
    (EXIT_USAGE, "usage error: an unknown --case, or a floors file that cannot be read"),
)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "eval",
        help="measure the cases on the real incidents among their fixtures",
        description="Diagnose every real-incident fixture (a fixture folder with an "
        "incident.yaml) with the whole knowledge base and report top-1/top-3 accuracy, "
        "near-miss false positives per level and a confusion table.",
        epilog=EXIT_STATUS,
    )
    p.add_argument(
        "--format",
        "-f",
        choices=("text", "json"),
        default="text",
        help="text for a person (default), or json (schema kb.eval/v1) for CI",
    )
    p.add_argument(
        "--case",
        action="append",
        default=[],
        metavar="ID",
        help="only the incidents stored under this case (repeatable)",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="exit 1 when a figure is past its bound in [tool.kb.eval] of --floors",
    )
    p.add_argument(
        "--floors",
        type=Path,
        default=FLOOR_FILE,
        metavar="TOML",
        help="the file holding [tool.kb.eval] (default: the project's pyproject.toml)",
    )
    p.add_argument(
        "--calibration",
        action="store_true",
        help="also print, per level, how many first answers were right, on the figures as "
        "they are now and as first seen, and which cases gave the wrong confident ones",
    )
    p.add_argument(
        "--incidents",
        type=Path,
        metavar="DIR",
        help="measure the real incidents under DIR (each folder with an incident.yaml, e.g. "
        "heldout/issue-24) instead of the cases' fixtures",
    )
    add_verbosity_options(
        p,
        quiet="text: only the incidents a case got wrong, and one summary line",
        verbose="text: also one line per incident",
    )
    add_cases_option(p)
    p.set_defaults(func=run)


def read_bounds(path: Path) -> dict[str, float]:
    """The committed floors (and ceilings): `[tool.kb.eval]` keys named as in the figures."""
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from exc
    table = data.get("tool", {}).get("kb", {}).get("eval", {})
    return {
        k.replace("-", "_"): float(v) for k, v in table.items() if k.replace("-", "_") in BOUNDS
    }


def breaches(figures: dict[str, Any], bounds: dict[str, float]) -> list[str]:
    out = []
    for key, bound in bounds.items():
        value = float(figures[key])
        if BOUNDS[key] and value < bound:
            out.append(f"{key} {value:.3f} is below its floor {bound:.3f}")
        if not BOUNDS[key] and value > bound:
            out.append(f"{key} {value:.3f} is above its ceiling {bound:.3f}")
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def render_text(ev: Evaluation, verbose: bool) -> str:
    from kb.evaluation import LEVELS

    f = ev.figures()
    out = [
        f"Real incidents: {f['incidents']} from {f['threads']} public threads "
        f"({f['covered']} of a known case, {f['uncovered']} of a kind no case covers, "
        f"{f['near_misses']} near misses)",
        "",
    ]
    out.append(f"  top-1 (right case named first)        {_pct(f['top1'])}")
    out.append(f"  top-1 at likely or better             {_pct(f['top1_likely_or_better'])}")
    out.append(f"  top-3                                 {_pct(f['top3'])}")
    out.append(f"  near misses at likely or better       {_pct(f['near_miss_likely_or_better'])}")
    out.append(f"  near misses confirmed                 {_pct(f['near_miss_confirmed'])}")
    levels = ", ".join(f"{lv} {f['near_miss_levels'][lv]}" for lv in LEVELS)
    out.append(f"  level the resembled case reached      {levels}")
    if f["uncovered"]:
        out.append(
            f"  uncovered kinds left silent           {f['uncovered_silent']} of {f['uncovered']}"
        )
    out.append(f"  answers at confirmed that were wrong   {f['confirmed_wrong']}")
    out += ["", *first_seen_lines(f)]
    out += ["", "Per case (incidents: named first / at likely+ / in top 3; near misses at likely+)"]
    for case_id, row in ev.per_case().items():
        out.append(
            f"  {case_id:<42} {row['first']:>2}/{row['incidents']:<2} first, "
            f"{row['first_likely']:>2} likely+, {row['top3']:>2} top-3; "
            f"near misses {row['near_misses_likely']}/{row['near_misses']} likely+"
        )
    out += ["", "Confusion (expected → named first)"]
    for expected, named in ev.confusion().items():
        cells = ", ".join(f"{k} {n}" for k, n in sorted(named.items(), key=lambda kv: -kv[1]))
        out.append(f"  {expected:<42} → {cells}")
    if verbose:
        out += ["", "Incidents"]
        out += [incident_line(r) for r in ev.results]
    for problem in ev.problems:
        out.append(f"problem: {problem.path}: {problem.message}")
    return "\n".join(out)


def first_seen_lines(f: dict[str, Any]) -> list[str]:
    """The honest figure: each incident as the tool first diagnosed it, before any change."""
    seen = f["first_seen"]
    backfilled = f.get("first_seen_backfilled", 0)
    head = (
        f"First seen (as first diagnosed, before any change for the incident): "
        f"{seen['incidents']} incidents with a first diagnosis"
        + (
            f" ({backfilled} back-filled: re-run later with the code of the commit before "
            f"each was stored, not recorded live)"
            if backfilled
            else ""
        )
        + f", {f['first_seen_unknown']} unknown (none kept, or that code could not run)"
    )
    if not seen["incidents"]:
        return [head]
    return [
        head,
        f"  top-1 {_pct(seen['top1'])} (of {seen['covered']}), "
        f"at likely or better {_pct(seen['top1_likely_or_better'])}, top-3 {_pct(seen['top3'])}",
        f"  near misses at likely or better {_pct(seen['near_miss_likely_or_better'])} "
        f"(of {seen['near_misses']}), confirmed {_pct(seen['near_miss_confirmed'])}; "
        f"answers at confirmed that were wrong {seen['confirmed_wrong']}",
    ]


def _right(r: IncidentResult) -> bool:
    """Named first when it has a known cause; left silent when it has none."""
    return r.top1 if r.expected else r.silent


def incident_line(r: IncidentResult) -> str:
    mark = "✔" if _right(r) else "✘"
    got = ", ".join(f"{c} ({lv})" for c, lv, _ in r.ranked[:3]) or "nothing"
    near = f"; resembles {r.near_miss_of}: {r.level_of(r.near_miss_of)}" if r.near_miss_of else ""
    return f"  {mark} {r.incident.name}: expected {r.expected or 'none'}; named {got}{near}"


def render_quiet(ev: Evaluation) -> str:
    """Only what went wrong (incidents, broken metadata) and the figures on one line."""
    f = ev.figures()
    out = [incident_line(r) for r in ev.results if not _right(r)]
    out += [f"problem: {p.path}: {p.message}" for p in ev.problems]
    out.append(
        f"{f['incidents']} real incidents: top-1 {_pct(f['top1'])}, top-1 at likely or better "
        f"{_pct(f['top1_likely_or_better'])}, top-3 {_pct(f['top3'])}; near misses at likely "
        f"or better {_pct(f['near_miss_likely_or_better'])}, confirmed "
        f"{_pct(f['near_miss_confirmed'])}"
    )
    return "\n".join(out)


def page_report(ev: Evaluation) -> str:
    """What the site's "How well it works" page shows: the report, then the calibration."""
    return render_text(ev, verbose=False) + "\n\n" + "\n".join(calibration_lines(ev))


def calibration_lines(ev: Evaluation) -> list[str]:
    """What each level was worth: now (fitted) and as first seen, where that was kept."""
    out = []
    for title, part in (("now", ev), ("as first seen", ev.first_seen())):
        if not part.results:
            out.append(f"Calibration {title}: no incident with a recorded result")
            continue
        out.append(
            f"Calibration {title} (first answer per incident; {len(part.results)} incidents)"
        )
        for level, row in part.calibration().items():
            rate = _pct(row["wrong"] / row["answers"]) if row["answers"] else "-"
            by = ", ".join(f"{c} {n}" for c, n in row["wrong_by_case"].items())
            out.append(
                f"  {level:<10} {row['answers']:>3} answers, {row['wrong']:>3} wrong ({rate})"
                + (f": {by}" if by else "")
            )
    return out


def render_json(ev: Evaluation, calibration: bool = False) -> str:
    doc: dict[str, Any] = {
        "schema": "kb.eval/v1",
        "figures": ev.figures(),
        "per_case": ev.per_case(),
        "confusion": ev.confusion(),
        "incidents": [
            {
                "fixture": r.incident.name,
                "source": r.incident.meta.source,
                "status": r.incident.meta.status,
                "expected": r.expected,
                "near_miss_of": r.near_miss_of,
                "named": [{"id": c, "level": lv, "score": s} for c, lv, s in r.ranked],
            }
            for r in ev.results
        ],
        "problems": [{"path": p.path, "message": p.message} for p in ev.problems],
    }
    if calibration:
        doc["calibration"] = {"now": ev.calibration(), "first_seen": ev.first_seen().calibration()}
    return json.dumps(doc, indent=2, ensure_ascii=False)


def run(args: argparse.Namespace) -> int:
    kb = load_kb(args)
    known = {c.case.id for c in kb.cases}
    unknown = [c for c in args.case if c not in known]
    if unknown:
        print(f"kb eval: unknown case id(s): {', '.join(unknown)}", file=sys.stderr)
        return EXIT_USAGE
    if args.incidents is not None and not args.incidents.is_dir():
        print(f"kb eval: --incidents {args.incidents}: not a folder", file=sys.stderr)
        return EXIT_USAGE
    from kb.evaluation import evaluate

    ev = evaluate(kb, args.case or None, args.incidents)
    if args.format == "json":
        print(render_json(ev, args.calibration))
    else:
        print(render_quiet(ev) if args.quiet else render_text(ev, args.verbose))
        if args.calibration:
            print("\n".join(["", *calibration_lines(ev)]))
    status = EXIT_PROBLEMS if ev.problems else EXIT_OK
    if args.check:
        try:
            bounds = read_bounds(args.floors)
        except ValueError as exc:
            print(f"kb eval: {exc}", file=sys.stderr)
            return EXIT_USAGE
        for line in breaches(ev.figures(), bounds):
            print(f"kb eval: {line}", file=sys.stderr)
            status = EXIT_PROBLEMS
    return status
