"""Real torchrun ChildFailedError reports, as posted (see each one's source)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

# Two ranks failed, no error file: Vision-CAIR/MiniGPT-4#237, stored as a case fixture.
MINIGPT4_237 = (
    ROOT
    / "cases/elastic-restart-hides-first-failure/fixtures/positive"
    / "gh-minigpt4-237-torchrun-summary-ranks-0-1-exitcode-1/console.log"
)

# With an error file: the block's `traceback` is the worker's traceback, indented by two
# spaces (`format_msg` replaces "\n" with "\n  "). From a meta-pytorch/torchft thread
# (LocalSGD, 2025-04-20) as posted, which had no closing border; the middle frames are left out.
TORCHFT_ERROR_FILE = """\
I got the following error:

============================================================
/srv/apps/warren/torchft/train_localsgd-two_level.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2025-04-20_07:33:53
  host      : sz-k8s-master
  rank      : 0 (local_rank: 0)
  exitcode  : 1 (pid: 65111)
  error_file: /tmp/torchelastic_sio2pi4d/none_cejtyodz/attempt_0/0/error.json
  traceback : Traceback (most recent call last):
    File "/srv/apps/danny/miniconda3/envs/warren/torchtitan/lib/python3.11/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 357, in wrapper
      return f(*args, **kwargs)
             ^^^^^^^^^^^^^^^^^^
    File "/srv/apps/warren/torchft/train_localsgd-two_level.py", line 281, in main
      managed_inner_optimizer.step()
    File "/srv/apps/warren/torchft/torchft/manager.py", line 621, in _async_quorum
      checkpoint_metadata = primary_client._checkpoint_metadata(
                            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  RuntimeError: status: InvalidArgument, message: "rank not found", details: [], metadata: MetadataMap { headers: {"content-type": "application/grpc", "date": "Sat, 19 Apr 2025 23:33:53 GMT", "content-length": "0"} }
"""


def wrapped_at(text: str, width: int) -> str:
    """`text` as a terminal `width` columns wide shows it, copied line by line."""
    out = []
    for line in text.split("\n"):
        out += [line[i : i + width] for i in range(0, len(line), width)] or [""]
    return "\n".join(out)
