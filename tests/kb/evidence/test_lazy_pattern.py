"""Module-level regexes of the evidence readers and the report compile on first use."""

from __future__ import annotations

import pickle
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from kb.evidence.lazy_pattern import LazyPattern, lazy

ROOT = Path(__file__).resolve().parents[3]


def test_compiles_on_first_use_to_re_compiles_pattern(monkeypatch, tmp_path):
    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path))
    calls: list[tuple[str, int]] = []
    from dsl import regex_cache

    real = regex_cache.compile
    monkeypatch.setattr(regex_cache, "compile", lambda p, f=0: calls.append((p, f)) or real(p, f))
    rx = lazy(r"NCCL (WARN|INFO) (\w+)", re.I)
    assert calls == []
    assert rx.search("x nccl warn Timeout").group(2) == "Timeout"
    assert rx.sub("-", "NCCL INFO a") == "-"
    assert calls == [(r"NCCL (WARN|INFO) (\w+)", re.I)]  # once, then kept
    assert isinstance(rx, LazyPattern)
    assert rx.compiled() == re.compile(r"NCCL (WARN|INFO) (\w+)", re.I)
    assert (rx.pattern, rx.flags, rx.groups) == (r"NCCL (WARN|INFO) (\w+)", re.I | re.U, 2)


def test_a_copy_starts_uncompiled_and_matches_the_same():
    rx = lazy(r"^\[(\d+)\]", re.M)
    assert rx.match("[3] x") is not None
    copy = pickle.loads(pickle.dumps(rx))
    assert "match" not in vars(copy)
    assert copy.findall("[1] a\n[2] b") == ["1", "2"]


def test_importing_the_readers_and_the_report_compiles_no_pattern():
    """A fresh process imports every module of kb/evidence, kb/report and kb/match and
    records each regex compiled by a module's own top-level code."""
    probe = textwrap.dedent(
        """
        import importlib, pkgutil, re, sys
        seen = []
        real = re.compile
        def compile(pattern, flags=0):
            frame = sys._getframe(1)
            name = frame.f_globals.get("__name__", "")
            if frame.f_code.co_name == "<module>" and name.startswith(PACKAGES):
                seen.append(name + ": " + str(pattern)[:60])
            return real(pattern, flags)
        re.compile = compile
        PACKAGES = ("kb.evidence.", "kb.report.", "kb.match.")
        OWNED_ELSEWHERE = {"kb.evidence.unflagged", "kb.match.diagnose"}
        for package in ("kb.evidence", "kb.report", "kb.match"):
            path = importlib.import_module(package).__path__
            for info in pkgutil.walk_packages(path, package + "."):
                importlib.import_module(info.name)
        print("\\n".join(s for s in seen if s.split(":")[0] not in OWNED_ELSEWHERE))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout
    assert out.strip() == ""
