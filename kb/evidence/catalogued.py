"""Whether a line is a message a program printed, by the catalogue's word.

The reader decides whether a small file (or an issue's block) is the user's prose or a
program's output. A hand-kept list of line shapes (`NCCL WARN`, `RuntimeError:`, a frame)
misses most messages: `Duplicate GPU detected : rank 7 and rank 5 both on CUDA device 10000`
reads like a sentence. The catalogue knows every decisive message as its emitter prints it,
so a line that *is* one of them (the message covers most of the line, not a quote inside a
sentence) is machine output.
"""

from __future__ import annotations

import re

COVERS = 0.6  # of the line's non-blank characters the message must span: a quote inside a
# sentence ("I get `Duplicate GPU detected` when …") spans less
MAX_LINE = 400  # longer lines are not a one-line paste; the shapes list decides them
MIN_LINE = 12


def is_catalogued_message(line: str) -> bool:
    """True when the line is a catalogued message, give or take a prefix (host, rank, time).

    >>> is_catalogued_message("Duplicate GPU detected : rank 7 and rank 5 both on CUDA device 10000")
    True
    >>> is_catalogued_message("Running on 8 GPUs, it fails with a duplicate GPU complaint each time.")
    False
    """
    text = line.strip()
    if not MIN_LINE <= len(text) <= MAX_LINE:
        return False
    from dsl.catalogue.index import compiled, message_index, messages_in  # only when asked

    solid = len(re.sub(r"\s+", "", text))
    for entry in messages_in(text, message_index().messages):
        pattern = compiled(entry.pattern)
        found = pattern.search(text) if pattern else None
        if found and len(re.sub(r"\s+", "", found.group(0))) >= COVERS * solid:
            return True
    return False
