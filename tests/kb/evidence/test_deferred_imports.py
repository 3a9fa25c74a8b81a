"""Reading a folder does not import the issue-body splitter (`kb diagnose -e issue.md` does:
tests/triage/test_issue_body.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_the_reader_imports_the_issue_body_modules_only_when_a_single_file_needs_them():
    probe = (
        "import sys, kb.evidence.reader\n"
        "print(sorted(m for m in ('kb.evidence.issue_body', 'kb.evidence.github_issue')"
        " if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout
    assert out.strip() == "[]"
