"""What reading a folder imports, and the stand-ins that keep heavy libraries off that path
give the libraries' answers (issue 27: a warm `kb diagnose` in a quarter of a second)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name

from kb.evidence.sources.packages import canonical_name
from kb.evidence.sources.plain_yaml import read_plain

ROOT = Path(__file__).resolve().parents[3]

NAMES = [
    "torch", "Torch", "torch_npu", "torch-npu", "Torch.NPU", "nvidia-nccl-cu12",
    "oslo.concurrency", "a-_.b", "A__B", "x...y", "zope.interface", "ruamel.yaml.clib",
    "Flask_SQLAlchemy", "-lead", "trail_", "", "ÄÖ.Ü", "mixed-_-Case.Name",
]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_package_names_are_normalized_as_packaging_does(name: str) -> None:
    assert canonical_name(name) == canonicalize_name(name)


def _imported_after_reading(folder: Path, modules: tuple[str, ...]) -> list[str]:
    probe = (
        "import json, sys\n"
        "from kb.evidence.reader import read_evidence\n"
        f"read_evidence({str(folder)!r})\n"
        f"print(json.dumps(sorted(m for m in {modules!r} if m in sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return json.loads(done.stdout)


def test_reading_package_listings_does_not_import_packaging_utils(tmp_path: Path) -> None:
    (tmp_path / "pip-freeze.txt").write_text("torch==2.1.0\naccelerate==0.28.0\n")
    (tmp_path / "pip-list.txt").write_text(
        "Package    Version\n---------- -------\ntorch_npu  2.1.0\n"
    )
    assert _imported_after_reading(tmp_path, ("packaging.utils", "packaging.tags")) == []


# ------------------------------------------------- accelerate's YAML without ruamel.yaml


def _ruamel(text: str) -> object:
    from ruamel.yaml import YAML

    try:
        return YAML(typ="safe", pure=True).load(text)
    except Exception as exc:  # any refusal: then the fast reader must have refused too
        return f"error: {type(exc).__name__}"


def _agrees(text: str) -> None:
    """`read_plain` either leaves `text` to ruamel or reads what ruamel reads, types included."""
    fast = read_plain(text)
    if fast is not None:
        slow = _ruamel(text)
        assert fast == slow and repr(fast) == repr(slow), text


YAML_FILES = sorted(
    p
    for top in ("cases", "examples", "heldout")
    for pattern in ("*.yaml", "*.yml")
    for p in (ROOT / top).rglob(pattern)
    if p.name != "incident.yaml"
)


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_yaml_of_the_fixtures_is_read_as_ruamel_reads_it(path: Path) -> None:
    _agrees(path.read_text(encoding="utf-8", errors="replace"))


def test_the_example_config_is_read_without_ruamel() -> None:
    text = (ROOT / "examples/hang-at-eval-8gpu/accelerate_config.yaml").read_text()
    assert read_plain(text) is not None


# scalars YAML 1.2 reads in more than one way, and shapes the fast reader must leave alone
SCALARS = [
    "8", "0", "-3", "+3", "007", "0o17", "0x1F", "1_000", "1e3", "1.0", "-1.5", ".5", "1.",
    "1.0e-3", ".inf", "-.inf", ".nan", "true", "false", "True", "FALSE", "yes", "no", "on",
    "off", "y", "n", "null", "Null", "NULL", "~", "", "bf16", "LOCAL_MACHINE", "DEEPSPEED",
    "all", "0,1", "0,1,2,3", "192.168.1.10", "2024-01-02", "12:30", "1:2:3", "a b", "a:b",
    "a: b", "a #c", "#c", "'no'", "'a''b'", "''", '"x"', '"a\\tb"', '""', "[]", "{}", "[1]",
    "{a: 1}", "- a", "|", ">", "&a x", "*a", "!!str 1", "=", "<<", "/abs/path", "rel/path",
    "a.b.c", "v1.2", "main", "static", "none", "None", "NaN", "tpu-v4", "é", "1 ", " 1",
]  # fmt: skip


@pytest.mark.parametrize("value", SCALARS)
def test_a_scalar_is_read_as_ruamel_reads_it_or_left_to_it(value: str) -> None:
    _agrees(f"key: {value}\n")
    _agrees(f"outer:\n  key: {value}\nafter: 1\n")


SHAPES = [
    "a: 1\na: 2\n",  # a duplicate key: ruamel's error
    "a: 1\r\nb: 2\r\n",
    "a: 1\n\nb: 2\n",
    "a: 1\n  b: 2\n",
    "a:\n  b: 1\n c: 2\n",
    "a:\n    b: 1\n  c: 2\n",
    "a:\nb: 1\n",
    "a:\n",
    "a:\n  b:\n    c: 1\n  d: 2\ne: 3\n",
    "a:\n- 1\n- 2\n",
    "# a comment\na: 1\n",
    "---\na: 1\n",
    "a: 1\n...\n",
    "%YAML 1.1\n---\na: yes\n",
    "\ta: 1\n",
    "a: 1 # note\n",
    "1: a\n",
    "true: a\n",
    "a-b: 1\n",
    "a : 1\n",
    "a:  1\n",
    "a: 1  \n",
    "   \n",
    "",
    "just text\n",
]


@pytest.mark.parametrize("text", SHAPES)
def test_a_shape_is_read_as_ruamel_reads_it_or_left_to_it(text: str) -> None:
    _agrees(text)


def test_reading_an_accelerate_config_does_not_import_ruamel(tmp_path: Path) -> None:
    config = ROOT / "examples/hang-at-eval-8gpu/accelerate_config.yaml"
    (tmp_path / "accelerate_config.yaml").write_bytes(config.read_bytes())
    assert _imported_after_reading(tmp_path, ("ruamel.yaml",)) == []


def test_reading_the_example_imports_none_of_them() -> None:
    """The bundled example (a pip freeze, an accelerate config, logs): the scan engine's
    cache key names the machine without `platform`, the readers need neither library."""
    heavy = ("ruamel.yaml", "packaging.utils", "platform")
    assert _imported_after_reading(ROOT / "examples" / "hang-at-eval-8gpu", heavy) == []


def test_a_door_looks_only_through_the_line_sources_patterns() -> None:
    """Each file's door (kb.evidence.dispatch) is set up from the line sources' part of the
    owners, kept once per pattern set: the case patterns, most of them, are none of it."""
    from kb.evidence.patterns import CASE, LogPattern, compile_patterns

    cases = tuple(LogPattern(f"case-{i}", f"word{i} [0-9]+") for i in range(50))
    compiled = compile_patterns(cases)
    sources = compiled.source_owners
    assert sources == {pid: o for pid, o in compiled.owners.items() if o[0] != CASE}
    assert len(compiled.owners) - len(sources) == 50
    assert compiled.progress_id in sources
    assert compiled.source_owners is sources  # kept, not made again per file
