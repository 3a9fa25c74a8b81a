"""The record a log shipper sends for one line: the fields every exported rule uses.

One schema for the rules, the shipper and the backend pipelines, so a rule's `line|re`
and a record's `line` cannot drift apart.
"""

from __future__ import annotations

TIMESTAMP = "timestamp"
HOST = "host"
JOB = "job"
RANK = "rank"
FILE = "file"
LINE_NUMBER = "line_number"
LINE = "line"  # the log line's text
KIND = "kind"  # the evidence source kb classified the file as ("nccl", "pytorch", "notes")

# Lines of a person's notes inside a ``` block are pasted tool output: kb reads them as log
# lines, so the shipper sends them under this kind of their own.
PASTED = "pasted"
# kb's kinds that hold a person's words or code, never searched by a query that does not ask
WORDS_ONLY = ("notes", "python-source")

GROUP_BY = (JOB,)  # a case is a verdict on one job
