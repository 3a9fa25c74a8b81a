"""Package listings: `pip freeze`, `pip list`, `conda list`. Names are normalized per PEP 503.

>>> from kb.evidence.context import FileContext
>>> from kb.evidence.ranks import PathHints
>>> from kb.evidence.limits import Limits
>>> ctx = FileContext("pip.txt", PathHints(), Limits())
>>> PipFreezeSource(ctx).parse("Torch==2.1.0+cu121\\naccelerate==0.28.0\\ntorch_npu==2.1.0.post3\\n")
>>> ctx.facts.package_captures[0].packages
{'torch': '2.1.0+cu121', 'accelerate': '0.28.0', 'torch-npu': '2.1.0.post3'}
"""

from __future__ import annotations

import re

from kb.evidence.context import FileContext
from kb.evidence.facts import PackageCapture
from kb.evidence.lazy_pattern import lazy
from kb.evidence.sources.base import WholeFileSource
from kb.evidence.sources.common import fraction
from kb.evidence.unwrap import join_split_versions

_FREEZE = lazy(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*(===?|@)\s*(\S.*?)\s*$")
_WHEEL_VERSION = lazy(r"/[A-Za-z0-9_.]+?-(\d[^-/]*)-[^/]*\.whl")
_LIST_HEADER = lazy(r"^Package\s+Version\b", re.M)
_DASHES = lazy(r"^-{3,}\s+-{3,}", re.M)


def canonical_name(name: str) -> str:
    """A package name normalized per PEP 503 (`re.sub(r"[-_.]+", "-", name).lower()`), as
    `packaging.utils.canonicalize_name` does it. Not imported from there: `packaging.utils`
    imports `packaging.tags`, and with it `subprocess`, `logging` and `platform` (20 ms of a
    warm `kb diagnose`, for one line of string work).

    >>> canonical_name("Torch_NPU"), canonical_name("oslo..concurrency"), canonical_name("a-_.b")
    ('torch-npu', 'oslo-concurrency', 'a-b')
    """
    value = name.lower().replace("_", "-").replace(".", "-")
    while "--" in value:
        value = value.replace("--", "-")
    return value


def add_capture(
    ctx: FileContext, tool: str, rows: list[tuple[str, str, int]]
) -> PackageCapture | None:
    """Stores (name, version, line) rows as one capture, names canonicalized."""
    if not rows:
        return None
    cap = PackageCapture(file=ctx.display, tool=tool)
    for name, version, line in rows:
        key = canonical_name(name)
        if key in cap.packages:
            continue  # the first mention wins (collect_env names torch twice)
        cap.packages[key] = version
        cap.lines[key] = line
    ctx.facts.package_captures.append(cap)
    return cap


class PipFreezeSource(WholeFileSource):
    name = "pip-freeze"
    description = "`pip freeze` output (name==version)"

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        if re.search(r"requirements|constraints", name, re.I) and not re.search(
            r"freeze", name, re.I
        ):
            return 0.0  # what a project asks for, not what is installed
        lines = [ln for ln in head.splitlines() if ln.strip() and not ln.startswith("#")]
        n, frac = fraction(
            "\n".join(lines), re.compile(r"^(-e |[A-Za-z0-9][\w.-]*(\[[^\]]*\])?\s*(===?|@ ))")
        )
        if n >= 2 and frac >= 0.6:
            return 0.9
        if n >= 1 and re.search(r"freeze|requirements", name, re.I):
            return 0.8
        return 0.0

    def parse(self, text: str) -> None:
        rows = []
        for no, raw in enumerate(join_split_versions(text).splitlines(), 1):
            m = _FREEZE.match(raw)
            if not m or raw.lstrip().startswith("#"):
                continue
            version = m.group(3)
            if m.group(2) == "@":
                w = _WHEEL_VERSION.search(version)
                version = w.group(1) if w else f"@ {version}"
            rows.append((m.group(1), version, no))
        add_capture(self.ctx, self.name, rows)


class PipListSource(WholeFileSource):
    name = "pip-list"
    description = "`pip list` table"

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        return 0.95 if _LIST_HEADER.search(head) and _DASHES.search(head) else 0.0

    def parse(self, text: str) -> None:
        rows = []
        started = False
        for no, raw in enumerate(text.splitlines(), 1):
            if not started:
                started = bool(_DASHES.match(raw))
                continue
            parts = raw.split()
            if len(parts) >= 2 and re.match(r"^[A-Za-z0-9]", parts[0]):
                rows.append((parts[0], parts[1], no))
        add_capture(self.ctx, self.name, rows)


class CondaListSource(WholeFileSource):
    name = "conda-list"
    description = "`conda list` table"

    @classmethod
    def sniff(cls, head: str, name: str) -> float:
        if "# packages in environment at" in head or re.search(
            r"^#\s*Name\s+Version\s+Build", head, re.M
        ):
            return 0.95
        return 0.0

    def parse(self, text: str) -> None:
        rows = []
        for no, raw in enumerate(text.splitlines(), 1):
            if raw.startswith("#") or not raw.strip():
                continue
            parts = raw.split()
            if len(parts) >= 2:
                rows.append((parts[0], parts[1], no))
        add_capture(self.ctx, self.name, rows)
