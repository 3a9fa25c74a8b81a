"""Snapshot what `kb` prints for every fixture and example, to prove a refactor changed nothing.

    python scripts/snapshot_outputs.py OUT.json          # write a snapshot
    python scripts/snapshot_outputs.py --compare A B     # exit 1 on any difference

Everything runs in one process (2 cores are shared, so no subprocess per folder): the cases
are compiled once, without the cache (a stale cache must not hide a change), and each folder
is read once, then rendered the ways the CLI renders it:

- `kb diagnose --format json`, `--format markdown` and text (with its summary, no colour);
- `kb evidence --format json` and its text summary;
- per case, `kb compile --show` (dsl/explain.py) and the site's sentences (kb/site/describe.py).

Stripped, because they legitimately vary: nothing by default. The JSON outputs hold paths
relative to the evidence root and no wall-clock time; the one absolute path, the diagnosis'
`evidence_root`, is replaced by the folder's path relative to the checkout.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def evidence_folders() -> list[Path]:
    """Every fixture folder of every bundled case, then the bundled examples."""
    fixtures = sorted(p for p in ROOT.glob("cases/*/fixtures/*/*") if p.is_dir())
    examples = sorted(p for p in ROOT.glob("examples/*") if p.is_dir())
    return fixtures + examples


def _folder_outputs(kb: Any, folder: Path) -> dict[str, str]:
    from kb.evidence.facts import dump_json
    from kb.evidence.summary import render_summary
    from kb.match.diagnose import diagnose_bundle, read_bundle
    from kb.report.json_report import render_json
    from kb.report.markdown import render_markdown
    from kb.report.text import render_text

    bundle = read_bundle(kb, str(folder), workers=1)
    diagnosis = diagnose_bundle(kb, bundle)
    summary = render_summary(bundle)
    return {
        "diagnose.json": render_json(diagnosis, kb),
        "diagnose.md": render_markdown(diagnosis, kb),
        "diagnose.txt": render_text(diagnosis, kb, colour=False, summary=summary),
        "evidence.json": dump_json(bundle, indent=2),
        "evidence.txt": summary,
    }


def _case_outputs(compiled: Any) -> dict[str, Any]:
    from kb.site import describe

    case = compiled.case
    return {
        "explain": compiled.plan(),
        "describe.queries": {q.name: str(describe.query(q)) for q in case.queries},
        "describe.clauses": [str(describe.clause(c)) for c in case.condition.clauses],
    }


def snapshot() -> dict[str, Any]:
    from dsl.compiler import load_knowledge_base

    kb = load_knowledge_base(with_env=False, use_cache=False)
    folders: dict[str, Any] = {}
    for folder in evidence_folders():
        rel = str(folder.relative_to(ROOT))
        with redirect_stdout(io.StringIO()):
            outputs = _folder_outputs(kb, folder)
        outputs = {k: v.replace(str(folder), rel) for k, v in outputs.items()}
        folders[rel] = outputs
    cases = {c.case.id: _case_outputs(c) for c in kb.cases}
    return {"folders": folders, "cases": cases}


def differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """One line per output that is missing on one side or differs."""
    found = []
    for section in ("folders", "cases"):
        left, right = a.get(section, {}), b.get(section, {})
        for key in sorted(set(left) | set(right)):
            if key not in left or key not in right:
                found.append(f"{section}/{key}: only in {'B' if key not in left else 'A'}")
                continue
            for name in sorted(set(left[key]) | set(right[key])):
                if left[key].get(name) != right[key].get(name):
                    found.append(f"{section}/{key}/{name}: differs")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", nargs="?", type=Path, help="where to write the snapshot")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"))
    args = parser.parse_args(argv)
    if args.compare:
        a, b = (json.loads(p.read_text(encoding="utf-8")) for p in args.compare)
        found = differences(a, b)
        print("\n".join(found[:50]))
        print(
            f"{len(a['folders'])} folders and {len(a['cases'])} cases compared, "
            f"{len(found)} difference(s)"
        )
        return 1 if found else 0
    if args.output is None:
        parser.error("give OUT.json or --compare A B")
    data = snapshot()
    args.output.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
    print(f"{len(data['folders'])} folders, {len(data['cases'])} cases -> {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
