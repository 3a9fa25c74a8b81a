"""The one small case the CLI tests run against: a pack of their own, so what they assert does
not move when a bundled case or the catalogue changes: its line is one no catalogued message
describes, so the confidence ladder counts it as the case's own evidence."""

from __future__ import annotations

# shaped like ProcessGroupNCCL's error line, worded as no real emitter prints it
ERROR = (
    "[rank1]:[E ProcessGroupToy.cpp:1316] [PG 0 Rank 1] ToyRemoteError: A toy call failed "
    "because a toy peer exited prematurely.\n"
)

KNOWN_GAP = """  fixture "positive/known-gap" {
    expect match
    todo "the error is only in a binary core dump"
  }
"""


def remote_error_case(case_id: str, *, known_gap: bool = True) -> str:
    """A case that requires the ToyRemoteError line, with a known-gap fixture if asked."""
    return f"""
case {case_id} {{
  title "NCCL remote error"
  summary "A peer died."
  severity high
  evidence remote_error: log {{
    pattern /ToyRemoteError: A toy call failed/
  }}
  match {{
    require remote_error
  }}
{KNOWN_GAP if known_gap else ""}}}
"""
