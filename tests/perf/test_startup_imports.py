"""`kb --help`, `kb --version` and argument errors must not import the language, the
evidence reader or the fixture runner (issue 27: they cost half a second of CPU)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("dsl.api", "dsl.model", "dsl.compiler", "pydantic", "lark", "kb.evidence.reader",
         "kb.fixtures", "kb.match.diagnose", "kb.evaluation")  # fmt: skip

PROBE = """
import json, sys
from kb.cli.main import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
heavy = [m for m in {heavy!r} if m in sys.modules]
sys.stderr.write("\\nPROBE " + json.dumps({{"code": code, "heavy": heavy}}) + "\\n")
"""


def _probe(*argv: str) -> dict[str, object]:
    """Run `kb ARGV` in a fresh interpreter; its exit code and the heavy modules it loaded."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *argv],
        capture_output=True,
        text=True,
        timeout=60,
    )
    line = [x for x in proc.stderr.splitlines() if x.startswith("PROBE ")]
    assert line, proc.stderr
    result: dict[str, object] = json.loads(line[-1][len("PROBE ") :])
    return result


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["--help"], 0),
        (["--version"], 0),
        (["diagnose", "--help"], 0),
        (["test", "--help"], 0),
        (["check", "--help"], 0),
        (["diagnose", "--no-such-option"], 2),
        (["no-such-command"], 2),
    ],
)
def test_light_invocations_import_nothing_heavy(argv: list[str], code: int) -> None:
    got = _probe(*argv)
    assert got["code"] == code
    assert got["heavy"] == []


def test_the_probe_sees_heavy_imports() -> None:
    """The probe can fail: a command that does real work loads the language."""
    got = _probe("compile", "--cases", "/nonexistent-kb-folder", "--no-bundled", "--no-cache")
    assert "dsl.compiler" in got["heavy"]  # type: ignore[operator]
