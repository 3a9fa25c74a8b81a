"""A warm `kb diagnose` loads no parser and no pydantic: Lark (and the case language's
parser), pydantic and the model modules are needed only when a case or catalogue file
changed (issue 27); the snapshot is read as plain records (kb.cache.records)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "hang-at-eval-8gpu"

PROBE = """
import io, json, sys
from contextlib import redirect_stdout
from kb.cli.main import main
with redirect_stdout(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code
names = ("lark", "dsl.parser", "dsl.grammar", "pydantic", "dsl.model", "dsl.kinds",
         "dsl.compiler", "dsl.span", "dsl.diagnostics", "dsl.catalogue.model")
sys.stderr.write("\\nPROBE " + json.dumps({"code": code,
                 "loaded": [n for n in names if n in sys.modules]}) + "\\n")
"""


def _diagnose(cache: str, *extra: str) -> dict[str, object]:
    env = dict(os.environ, KB_CACHE_DIR=cache)
    env.pop("KB_CASES", None)
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, "diagnose", "--no-pager", "--evidence", str(EXAMPLE), *extra],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
    )
    line = [x for x in proc.stderr.splitlines() if x.startswith("PROBE ")]
    assert line, proc.stderr[-2000:]
    found: dict[str, object] = json.loads(line[-1][len("PROBE ") :])
    return found


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> str:
    return os.environ.get("KB_CACHE_DIR") or str(tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="module")
def runs(cache: str) -> tuple[dict[str, object], ...]:
    """A first run (it fills the cache: parses everything) and a warm one."""
    first = _diagnose(cache)
    return first, _diagnose(cache)


@pytest.mark.slow
def test_the_probe_sees_a_parse(tmp_path: Path) -> None:
    """The probe can fail: an empty cache parses the cases, so Lark and pydantic are loaded."""
    got = _diagnose(str(tmp_path))
    assert got["code"] == 0
    assert {"lark", "pydantic", "dsl.model"} <= set(got["loaded"])  # type: ignore[arg-type]


@pytest.mark.slow
def test_a_warm_diagnose_loads_no_parser(runs: tuple[dict[str, object], ...]) -> None:
    _, warm = runs
    assert warm["code"] == 0  # the example matches a case
    loaded = warm["loaded"]
    assert isinstance(loaded, list)
    assert not {"lark", "dsl.parser", "dsl.grammar"} & set(loaded)


@pytest.mark.slow
def test_a_warm_diagnose_loads_no_pydantic(runs: tuple[dict[str, object], ...]) -> None:
    _, warm = runs
    assert warm["code"] == 0
    assert warm["loaded"] == []


@pytest.mark.slow
@pytest.mark.parametrize("form", ["json", "markdown"])
def test_no_pydantic_in_any_report_form(
    runs: tuple[dict[str, object], ...], cache: str, form: str
) -> None:
    got = _diagnose(cache, "--format", form)  # after `runs`: the cache is warm
    assert got["code"] == 0 and got["loaded"] == []
