"""Rewrite the `kb eval` figures in the README and on the site's "How well it works" page.

Both hold the command's own output between ```text fences; tests/kb/test_eval.py fails when
they drift from what `kb eval` prints, and this script brings them back in step:

    .venv/bin/python scripts/update_eval_figures.py
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from kb.cli.common import load_kb
from kb.cli.eval import page_report
from kb.evaluation import evaluate

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "site" / "reference" / "how-well-it-works.md"
README = ROOT / "README.md"
README_LINES = 14  # the headline figures, fitted and first seen; the page holds it all
BLOCK = re.compile(r"(```text\n)(Real incidents: .*?)(\n```)", re.S)


def replace_block(text: str, body: str) -> str:
    if not BLOCK.search(text):
        raise SystemExit("no ```text block starting with 'Real incidents:' to replace")
    return BLOCK.sub(lambda m: m.group(1) + body + m.group(3), text, count=1)


def main() -> int:
    args = argparse.Namespace(cases=[], no_bundled=False, no_cache=False)
    report = page_report(evaluate(load_kb(args)))
    PAGE.write_text(replace_block(PAGE.read_text(encoding="utf-8"), report), encoding="utf-8")
    head = "\n".join(report.splitlines()[:README_LINES]).rstrip()
    README.write_text(replace_block(README.read_text(encoding="utf-8"), head), encoding="utf-8")
    print(head)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
