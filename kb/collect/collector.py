"""`kb collect`: run every capture (in parallel, each under its timeout), redact, write.

The whole run is bounded by the slowest capture's timeout; on a machine without GPUs most
tools are simply missing and the collection takes a second or two."""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from kb.collect.bundle import MANIFEST, is_archive, write_archive, write_folder
from kb.collect.captures import Captured, captures, job_variables, run_capture
from kb.collect.commands import Output
from kb.redact.secrets import SecretRedactor

DEFAULT_TIMEOUT = 20.0
WORKERS = 6
SCHEMA = "kb.collect/v1"


@dataclass(kw_only=True)
class CollectReport:
    captured: list[Captured] = field(default_factory=list)
    redacted: list[str] = field(default_factory=list)  # summary lines: names, never values
    files: dict[str, str] = field(default_factory=dict)  # what was written (redacted)
    seconds: float = 0.0


def default_python(environ: Mapping[str, str]) -> str:
    """The interpreter a job started from this shell would use (`python`, then `python3`),
    else the one running kb."""
    for name in ("python", "python3"):
        found = shutil.which(name, path=environ.get("PATH"))
        if found:
            return found
    return sys.executable


def gather(
    environ: Mapping[str, str] | None = None,
    *,
    python: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> CollectReport:
    """Runs every capture and returns the redacted files (nothing written yet)."""
    start = time.monotonic()
    env = dict(os.environ if environ is None else environ)
    env.setdefault("LC_ALL", "C.UTF-8")  # tools' own wording, not a translation
    py = python or default_python(env)
    home = env.get("HOME") or os.path.expanduser("~")
    report = CollectReport()
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        report.captured = list(pool.map(lambda c: run_capture(c, env, timeout), captures(py, home)))
    redactor = SecretRedactor(env)
    variables = redactor.environment(job_variables(env))
    env_text = "".join(f"{k}={v}\n" for k, v in variables.items())
    env_out = Output(
        command="the variables of this shell named "
        "NCCL_*, TORCH_*, HCCL_*, CUDA_*, ASCEND_*, GLOO_*, MASTER_*, ... "
        "(secret values masked)",
        status=0,
    )
    for name, value in job_variables(env).items():
        if variables[name] != value:
            redactor.note("env.txt", f"{name} (secret variable)")
    report.captured.append(Captured(file="env.txt", output=env_out, text=env_text or None))
    for cap in report.captured:
        if cap.text is not None:
            report.files[cap.file] = redactor.text(cap.file, cap.text)
        cap.output.note = redactor.text(cap.file, cap.output.note)
        cap.output.detail = redactor.text(cap.file, cap.output.detail)
    report.redacted = redactor.summary()
    report.seconds = time.monotonic() - start
    report.files[MANIFEST] = manifest(report)
    return report


def manifest(report: CollectReport) -> str:
    """What made each file (command, exit status, time, note) and what was redacted."""
    entries = [
        {
            "file": c.file, "command": c.output.command, "status": c.output.status,
            "seconds": round(c.output.seconds, 3), "note": c.output.note,
            "written": c.file in report.files,
        }
        for c in report.captured
    ]  # fmt: skip
    doc = {
        "schema": SCHEMA, "host": socket.gethostname(),
        "collected_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": round(report.seconds, 3), "captures": entries, "redacted": report.redacted,
    }  # fmt: skip
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def default_archive_name() -> str:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return f"kb-collect-{socket.gethostname()}-{stamp}.tar.gz"


def collect_to(path: Path, report: CollectReport, *, force: bool = False) -> None:
    """Writes the report's files as an archive (`.tar.gz`/`.tgz`) or into a folder, privately
    and through no link (`bundle.py`); raises `OutputRefused` for a path it will not use."""
    if is_archive(path):
        top = path.name.removesuffix(".tar.gz").removesuffix(".tgz")
        write_archive(path, top, report.files, force=force)
    else:
        write_folder(path, report.files, force=force)
