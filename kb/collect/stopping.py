"""How `kb run` stops a job: signals the user sends are forwarded to the launcher's process
group and, when the job does not end, escalated (SIGINT or SIGHUP → SIGTERM → SIGKILL, one
grace period apart, a second signal from the user skipping the wait); whatever of the group
outlives the launcher is stopped the same way, so no process is left behind.

The handlers are installed *before* the launcher starts. A caught signal is reset to its
default by `exec`, an ignored one is not: a `kb run` started by `nohup … &`, cron or a CI
runner has SIGINT ignored, and a launcher that inherited that would never stop on the SIGINT
kb forwards. Installing a handler first gives the launcher default dispositions. One
exception: a SIGHUP ignored when kb run starts (`nohup`) stays ignored, for kb run and the
launcher alike, since the user asked that closing the terminal leave the job running.

Handlers only record and forward (os.killpg); what to say is said by the supervising loop,
so nothing is printed from inside a signal handler."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable, Iterator
from typing import Any

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# Once a job's launcher has exited, what is left of its group gets this long after SIGTERM.
LEFTOVER_GRACE = 5.0


def next_signal(sent: int) -> int:
    """The step after `sent` on the ladder SIGINT/SIGHUP → SIGTERM → SIGKILL.

    >>> next_signal(signal.SIGINT).name, next_signal(signal.SIGTERM).name
    ('SIGTERM', 'SIGKILL')
    """
    return signal.SIGKILL if sent in (signal.SIGTERM, signal.SIGKILL) else signal.SIGTERM


def signal_group(pgid: int, sig: int) -> bool:
    """Sends `sig` to a process group; False when the group no longer exists."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # a member we may not signal (setuid): the group is still there
    return True


def group_members(pgid: int) -> list[int]:
    """Live processes of the group `pgid` (zombies excluded), read from /proc."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 2 and fields[2] == str(pgid).encode() and fields[0] != b"Z":
            members.append(int(entry))
    return sorted(members)


class Stopper:
    """Forwards the user's signals to the job's group and escalates when it does not end.

    `tick()` is called by the supervising loop: it escalates once a grace period has passed
    and returns the sentences to say. Signals that arrive before the launcher has started
    are kept and sent as soon as it has (`attach`)."""

    def __init__(self, grace: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.grace, self.clock = grace, clock
        self.pgid: int | None = None
        self.received: list[str] = []  # every signal the user sent, in order
        self._pending: list[int] = []  # received, not yet said
        self._last: int | None = None  # the last signal sent to the group
        self._escalate_at: float | None = None

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        """The forwarding handlers, for the launcher's whole life (main thread only)."""
        previous: dict[signal.Signals, Any] = {}
        for sig in FORWARDED:
            if sig == signal.SIGHUP and signal.getsignal(sig) == signal.SIG_IGN:
                continue  # nohup: see the module's docstring
            try:
                previous[sig] = signal.signal(sig, self._on_signal)
            except ValueError:  # not the main thread (run_job called from a thread)
                break
        try:
            yield
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)

    def attach(self, pgid: int) -> None:
        self.pgid = pgid
        if self._pending:
            self._send(self._pending[-1])

    def _on_signal(self, sig: int, _frame: object) -> None:
        self.received.append(signal.Signals(sig).name)
        self._pending.append(sig)
        if self.pgid is None:
            return
        if self._last is None:
            self._send(sig)
        else:  # the user asks again: skip the wait
            self._send(next_signal(self._last))

    def _send(self, sig: int) -> None:
        assert self.pgid is not None
        self._last = sig
        if signal_group(self.pgid, sig) and sig != signal.SIGKILL:
            self._escalate_at = self.clock() + self.grace
        else:
            self._escalate_at = None

    def start_stopping(self, sig: int) -> None:
        """kb's own decision to stop the job (--stop-on-stall), on the same ladder."""
        self._send(sig)

    def tick(self) -> list[str]:
        """Escalates when the grace period is over; returns what to tell the user."""
        said = []
        if self._pending and self._last is not None:
            got = ", ".join(signal.Signals(s).name for s in self._pending)
            said.append(f"kb run: got {got}; sent {signal.Signals(self._last).name} to the "
                        f"job (process group {self.pgid}){self._then()}")  # fmt: skip
            self._pending.clear()
        if self._escalate_at is not None and self.clock() >= self._escalate_at:
            assert self._last is not None
            waited = signal.Signals(self._last).name
            self._send(next_signal(self._last))
            said.append(f"kb run: the job is still running {self.grace:g} s after {waited}; "
                        f"sent {signal.Signals(self._last).name}{self._then()}")  # fmt: skip
        return said

    def _then(self) -> str:
        if self._escalate_at is None:
            return ""
        assert self._last is not None
        return (f"; {signal.Signals(next_signal(self._last)).name} in {self.grace:g} s "
                "if it is still running (send the signal again to skip the wait)")  # fmt: skip


def stop_leftovers(pgid: int, say: Callable[[str], None],
                   grace: float = LEFTOVER_GRACE) -> list[int]:  # fmt: skip
    """Stops what is left of the group once its launcher has exited (a grandchild it forked,
    a worker it did not reap): SIGTERM, then SIGKILL after `grace`. Returns their pids."""
    left = group_members(pgid)
    if not left:
        return []
    say(f"kb run: {len(left)} process(es) of the job outlived the launcher (pids "
        f"{', '.join(map(str, left))}); sent SIGTERM")  # fmt: skip
    signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while group_members(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if group_members(pgid):
        say(f"kb run: still running {grace:g} s after SIGTERM; sent SIGKILL")
        signal_group(pgid, signal.SIGKILL)
    return left
