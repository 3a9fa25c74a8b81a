"""Whether a line is a message a program printed, by the catalogue's word.

The reader decides whether a small file (or an issue's block) is the user's prose or a
program's output. A hand-kept list of line shapes (`NCCL WARN`, `RuntimeError:`, a frame)
misses most messages: `Duplicate GPU detected : rank 7 and rank 5 both on CUDA device 10000`
reads like a sentence. The catalogue knows every decisive message as its emitter prints it,
so a line that *is* one of them is machine output: the message starts the line, or follows a
prefix a program writes (a host, a rank, a time, a severity), not words of a sentence
("it always stops with Duplicate GPU detected" is the user quoting it).
"""

from __future__ import annotations

from kb.evidence.lazy_pattern import lazy

MAX_LINE = 2000  # the index reads as much of a line
MIN_LINE = 12
# a lower-case word standing alone between spaces: prefixes programs write have none or one
# (`line` in `run.sh: line 5:`; a logger's dotted name `torch.distributed.elastic` is one
# token, not words), a sentence before a quote has several
_MAX_HANDOVER_WORDS = 4
# each wrapper of an error chain adds `context: ` before the message it wraps; a sentence
# quoting a message has one colon
_MIN_CHAIN_LINKS = 3
_PROSE_WORD = lazy(r"(?<!\S)[a-z]{2,}[,;:]?(?!\S)")


def is_catalogued_message(line: str) -> bool:
    """True when the line is a catalogued message, give or take a prefix (host, rank, time).

    >>> is_catalogued_message("Duplicate GPU detected : rank 7 and rank 5 both on CUDA device 10000")
    True
    >>> is_catalogued_message("Running on 8 GPUs, it fails with a duplicate GPU complaint each time.")
    False
    >>> is_catalogued_message("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 5343) of binary: /usr/bin/python")
    True
    >>> is_catalogued_message("CUDA kernel failed : no kernel image is available for execution on the device")
    True
    >>> is_catalogued_message("It always stops with Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1a000")
    False
    >>> is_catalogued_message("docker: Error response from daemon: OCI runtime create failed: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: requirement error: unsatisfied condition: cuda>=11.0, please update your driver to a newer version, or use an earlier cuda container: unknown.")
    True
    >>> is_catalogued_message("When I start it I get this error: requirement error: unsatisfied condition: cuda>=11.0")
    False
    """
    text = line.strip()
    if not MIN_LINE <= len(text) <= MAX_LINE:
        return False
    from dsl.catalogue.index import compiled, message_index, messages_in  # only when asked

    for entry in messages_in(text, message_index().messages):
        pattern = compiled(entry.pattern)
        found = pattern.search(text) if pattern else None
        if found and _program_prefix(text[: found.start()]):
            return True
    return False


def _program_prefix(before: str) -> bool:
    """What precedes the message is a program's prefix, not the words of a sentence: at most
    one lower-case word, or a few ending the way a program hands over to the message it
    quotes, with a colon or a closing bracket (`CUDA kernel failed : `, `Check failed: error
    == cudaSuccess (48 vs. 0) `), which a sentence quoting it rarely does; or a chain of
    wrappers each handing over with a colon, however many words they hold."""
    words = len(_PROSE_WORD.findall(before))
    if words < 2:
        return True
    if before.rstrip().endswith(":") and before.count(": ") >= _MIN_CHAIN_LINKS:
        return True  # a wrapped error chain (`docker: …: caused: …: stderr: `), as Go prints
    return words <= _MAX_HANDOVER_WORDS and before.rstrip()[-1:] in (":", ")", "]")
