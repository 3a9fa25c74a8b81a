"""How `kb preflight` shows its warnings: text for a person, JSON (`kb.preflight/v1`)."""

from __future__ import annotations

import json

from kb.collect.preflight import PreflightReport

SCHEMA = "kb.preflight/v1"
# the captures that find a GPU, an NPU or an RDMA device: when none ran, no case could apply
DEVICE_TOOLS = ("nvidia-smi", "npu-smi info", "ibv_devinfo", "ibstat")


def status(report: PreflightReport) -> str:
    """`warning`, `clean`, or `nothing-checked` (no case applied: not an all-clear)."""
    if report.warnings:
        return "warning"
    return "clean" if report.checked else "nothing-checked"


def _nothing_checked(report: PreflightReport, where: str) -> str:
    """Said plainly: no case could be evaluated, why, and what was missing."""
    if report.skipped:
        why = (f"all {report.skipped} cases are for hardware this machine does not show "
               f"({where})")  # fmt: skip
    else:
        why = "no case was loaded"
    missing = [t for t in report.missing_tools if t in DEVICE_TOOLS]
    if missing:
        why += f"; not found on PATH: {', '.join(missing)}"
    return (f"Nothing was checked: {why}.\n"
            "This is not an all-clear: run kb preflight on a node the job runs on, with its "
            "GPU or NPU tools on PATH.\n")  # fmt: skip


def render_text(report: PreflightReport) -> str:
    machine = report.machine
    where = ", ".join(sorted(machine.platforms)) or "no GPU or NPU found"
    head = (f"Checked {report.checked} case(s) that apply to this machine ({where}"
            f"{', RDMA' if machine.rdma else ''}); {report.skipped} are for other hardware.")  # fmt: skip
    if status(report) == "nothing-checked":
        return _nothing_checked(report, where)
    if not report.warnings:
        return head + "\nNo known-bad combination found.\n"
    lines = [head, f"{len(report.warnings)} warning(s):", ""]
    for n, w in enumerate(report.warnings, 1):
        lines.append(f"{n}. {w.case}: {w.title}")
        for r in w.because:
            lines.append(f"   ✔ {r.name}: {r.detail[:200]}")
            for ln in r.lines[:2]:
                lines.append(f"       {ln.file}:{ln.line}  {ln.text[:160]}")
        if w.remedy:
            lines.append(f"   first step: {w.remedy}")
            for code_line in w.run.splitlines()[:6]:
                lines.append(f"       {code_line}")
        lines.append(f"   page: {w.page}")
        lines.append("")
    return "\n".join(lines)


def render_json(report: PreflightReport) -> str:
    doc = {
        "schema": SCHEMA,
        "status": status(report),
        "checked": report.checked,
        "skipped": report.skipped,
        "machine": {"platforms": sorted(report.machine.platforms), "rdma": report.machine.rdma,
                    "interfaces": report.machine.interfaces},
        "missing_tools": report.missing_tools,
        "warnings": [
            {
                "case": w.case, "title": w.title, "page": w.page,
                "because": [{"query": r.name, "kind": r.kind, "detail": r.detail,
                             "lines": [{"file": ln.file, "line": ln.line, "text": ln.text}
                                       for ln in r.lines]} for r in w.because],
                "remedy": {"step": w.remedy, "run": w.run},
            }
            for w in report.warnings
        ],
    }  # fmt: skip
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
