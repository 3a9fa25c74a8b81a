"""The text `kb collect` prints: what was captured, what is missing and why, what was
redacted (names only)."""

from __future__ import annotations

from kb.collect.collector import CollectReport


def render_collect(report: CollectReport, where: str) -> str:
    written = [c for c in report.captured if c.file in report.files]
    missing = [c for c in report.captured if c.file not in report.files]
    lines = [f"Wrote {where}: {len(written)} capture(s) in {report.seconds:.1f} s"]
    for c in written:
        status = "" if c.output.ok else f"  ({c.output.note or f'exit {c.output.status}'})"
        lines.append(f"  ✔ {c.file:<38} {c.output.command[:60]}{status}")
    if missing:
        lines.append(f"Not captured ({len(missing)}):")
        lines.extend(
            f"  ✘ {c.file:<38} {c.output.note or 'no output'}"
            + (f": {c.output.detail}" if c.output.detail else "")
            for c in missing
        )
    if report.redacted:
        lines.append("Redacted (names, never values):")
        lines.extend(f"  {line}" for line in report.redacted)
    else:
        lines.append("Redacted: nothing looked like a secret")
    lines.append("Each file's command and exit status: collect-manifest.json in the bundle.")
    return "\n".join(lines) + "\n"
