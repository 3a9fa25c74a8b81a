"""`kb-run.json` is kb run's record of what it ran, not evidence: its command line must not
become a suspicious line (or a case's evidence) when the bundle is read, in a folder or an
archive. `kb-run-notes.md` stays evidence: kb run's observations, written as notes on purpose."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

from launch_fakes import KB, REPO

from kb.evidence.reader import read_evidence

# words a case would take for evidence, here only in the launcher's command line
PLANTED = "RuntimeError: NCCL communicator was aborted on rank 3"


def _bundle(tmp_path: Path) -> Path:
    bundle = tmp_path / "b"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run(
        [*KB, "run", "--bundle", str(bundle), "--", sys.executable, "-c", "print('ok')",
         PLANTED],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert PLANTED in (bundle / "kb-run.json").read_text()  # the record does hold it
    return bundle


def test_kb_run_json_is_not_read_as_evidence(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path)
    archive = tmp_path / "b.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(bundle, arcname="kb-run-x")
    for root in (bundle, archive):
        facts = read_evidence(root).facts
        read = [f.path for f in facts.files]
        assert not [p for p in read if p.endswith("kb-run.json")], read
        assert [p for p in read if p.endswith("kb-run-notes.md")], read  # notes stay evidence
        said = [line.text for line in facts.suspicious + facts.notes]
        assert not [t for t in said if "communicator was aborted" in t], said
        skipped = {s.path: s.reason for s in facts.skipped if s.path.endswith("kb-run.json")}
        assert len(skipped) == 1 and "not evidence" in next(iter(skipped.values())), skipped
