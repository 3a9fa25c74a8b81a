"""A report longer than the terminal goes through a pager, as git's output does: printed
straight, a terminal scrolls the first screen (the answer, the first fix, the next command)
out of sight and leaves the user looking at the last remedy of the last candidate.

Only when writing to a terminal and only when the report does not fit; `KB_PAGER` (then
`PAGER`) names the pager, `less` by default with `LESS=FRX` unless the user set `LESS`
(quit if it fits, keep colours, leave the text on screen after quitting); an empty
`KB_PAGER`, `cat` or `--no-pager` prints straight."""

from __future__ import annotations

import os
import shlex
import shutil
from typing import TextIO


def pager_command(environ: dict[str, str] | os._Environ[str]) -> list[str] | None:
    """The pager to run, or None to print straight.

    >>> pager_command({"KB_PAGER": "", "PAGER": "more"}) is None
    True
    >>> pager_command({"PAGER": "less -S"})
    ['less', '-S']
    >>> pager_command({"KB_PAGER": "cat"}) is None
    True
    """
    command = environ.get("KB_PAGER", environ.get("PAGER", "less"))
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words or words[0] == "cat":
        return None
    return words


def write_paged(text: str, stream: TextIO, *, allowed: bool = True) -> None:
    """Writes `text`, through the pager when `stream` is a terminal it does not fit on."""
    words = pager_command(os.environ) if allowed and _is_terminal(stream) else None
    if words is None or text.count("\n") < shutil.get_terminal_size().lines:
        stream.write(text)
        return
    import subprocess  # only to start a pager: its import was ~3 ms of every report

    stream.flush()
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    try:
        pager = subprocess.Popen(words, stdin=subprocess.PIPE, env=env, encoding="utf-8",
                                 errors="replace")  # fmt: skip
    except OSError:  # no such pager on this machine
        stream.write(text)
        return
    assert pager.stdin is not None
    try:
        pager.stdin.write(text)
        pager.stdin.close()
    except BrokenPipeError:
        pass  # the user quit the pager before reading it all
    while True:
        try:
            pager.wait()
            break
        except KeyboardInterrupt:
            continue  # Ctrl-C is the pager's to handle, as under git


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
