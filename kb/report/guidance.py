"""What to do next and why one candidate ranks above another, in words (never scores)."""

from __future__ import annotations

from collections.abc import Callable

from kb.match.results import Verdict
from kb.report.shapes import Ask, Candidate, Fix


def next_command(
    state: str, best: Candidate | None, steps: list[Ask], fix: Fix | None, root: str
) -> tuple[str, str]:
    """The one command to run next, and why that one."""
    if state == "empty":
        return (
            "kb collect -o evidence.tar.gz && kb diagnose --evidence evidence.tar.gz",
            "capture the environment (and add the job's logs: torchrun --log-dir logs "
            "--redirects 3 … 2>&1 | tee console.log), then diagnose that",
        )
    if best is not None and best.verdict.level != "confirmed":
        for ask in [*best.confirm, *best.helps, *best.rule_out]:
            command = runnable(ask.commands)
            if command:
                return command, f"to see whether {ask.what}: that would settle it"
    if state == "match" and fix is not None:
        checks = [c for step in fix.steps for c in step.verify_commands]
        if checks:
            return checks[0], "after the fix: checks that it worked"
        return (
            f"kb diagnose --evidence {root}",
            "after the fix, run the job again and diagnose its new logs",
        )
    for ask in steps:
        command = runnable(ask.commands)
        if command:
            return command, f"collects {ask.what}"
    return f"kb diagnose -v --evidence {root}", "shows everything that was read"


def runnable(commands: list[str]) -> str:
    """The first block that runs something, from its first line that is not a comment."""
    for code in commands:
        lines = [ln for ln in code.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        if lines:
            return "\n".join(lines)
    return ""


def ranking_sentence(ranked: list[Verdict], words: Callable[[str, str], str]) -> str | None:
    """Why the first candidate ranks above the second: a higher level, or, at the same level,
    the signs only it has, in the queries' own words (never scores or query names)."""
    if len(ranked) < 2:
        return None
    first, second = ranked[0], ranked[1]
    own = sorted({n for n, _ in first.evidence} - {n for n, _ in second.evidence})
    if second.id in first.specializes:  # a kind of the general case: it goes first
        shown = "; ".join(words(first.id, name) for name in own[:2]) or "its own signs"
        return f"a kind of {second.id} ({second.level}), ranked above it: only it has {shown}"
    if first.level != second.level:
        return f"ranked above {second.id}: it is {first.level}, {second.id} only {second.level}"
    if not own:
        return f"ranked above {second.id}, also {second.level}: more of its signs were seen"
    shown = "; ".join(words(first.id, name) for name in own[:2])
    more = f" (and {len(own) - 2} more)" if len(own) > 2 else ""
    return f"ranked above {second.id}, also {second.level}: only it has {shown}{more}"
