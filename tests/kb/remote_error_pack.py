"""The one small case the CLI tests run against: a pack of their own, so what they assert does
not move when a bundled case changes."""

from __future__ import annotations

# what ProcessGroupNCCL prints when a peer died (ncclRemoteError)
ERROR = (
    "[rank1]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 1] ncclRemoteError: A call failed "
    "possibly due to a network error or a remote process exiting prematurely.\n"
)

KNOWN_GAP = """  fixture "positive/known-gap" {
    expect match
    todo "the error is only in a binary core dump"
  }
"""


def remote_error_case(case_id: str, *, known_gap: bool = True) -> str:
    """A case that requires the ncclRemoteError line, with a known-gap fixture if asked."""
    return f"""
case {case_id} {{
  title "NCCL remote error"
  summary "A peer died."
  severity high
  evidence remote_error: log {{
    pattern /ncclRemoteError: A call failed/
  }}
  match {{
    require remote_error
  }}
{KNOWN_GAP if known_gap else ""}}}
"""
