"""A file's kind is decided by what it holds, not by its name (issue 24, item 5): one-line
error files are logs, prose stays notes even when it names a launcher, and command lines are
the command the user ran."""

from __future__ import annotations

import pytest

from kb.evidence.reader import read_evidence
from kb.evidence.registry import classify

ERROR_LINES = {
    "issue-title-error.txt": "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/"
    "distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error, NCCL version 2.19.3\n",
    "error.txt": "RuntimeError: NCCL communicator was aborted on rank 3. Original reason for "
    "failure was: [Rank 3] Watchdog caught collective operation timeout\n",
    "notes.txt": "node1:2345:2399 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<5555> "
    "with error 12, opcode 0, len 0, vendor err 129\n",
    "problem.txt": '  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/'
    'distributed_c10d.py", line 2050, in all_reduce\n    work = group.allreduce([tensor], opts)\n'
    "torch.distributed.DistBackendError: NCCL error\n",
    "description": "[rank1]: RuntimeError: CUDA error: an illegal memory access was encountered\n",
    # no shape of a log line (no prefix, no `Error:`), but a message the catalogue knows
    "nccl-error.txt": "Duplicate GPU detected : rank 7 and rank 5 both on CUDA device 10000\n",
}


@pytest.mark.parametrize("name", sorted(ERROR_LINES))
def test_a_file_of_tool_output_is_a_log_whatever_its_name(name: str) -> None:
    assert classify(ERROR_LINES[name], name) != "notes"


PROSE = {
    "notes.txt": "We launch it with torchrun on two nodes and it hangs after the NCCL init.\n",
    "issue.txt": "The job hangs at the first allreduce when we use two nodes. It works on one "
    "node with eight GPUs.\n",
    "hang.txt": "We launch it with torchrun on two nodes and it hangs after the NCCL init.\n",
    "what I see.txt": "Training with deepspeed on four nodes stops after the first step and "
    "nothing is printed any more.\n",
    # a catalogued message quoted inside a sentence is still the user's words
    "report.txt": "On one node with 8 GPUs it always stops with Duplicate GPU detected, and "
    "the pair of ranks it names changes from run to run.\n",
}


@pytest.mark.parametrize("name", sorted(PROSE))
def test_prose_stays_notes_even_when_it_names_a_launcher(name: str) -> None:
    assert classify(PROSE[name], name) == "notes"


def test_an_error_file_read_as_a_log_keeps_its_error_line(tree) -> None:  # type: ignore[no-untyped-def]
    root = tree({"issue-title-error.txt": ERROR_LINES["issue-title-error.txt"]})
    facts = read_evidence(root).facts
    assert facts.notes == []
    assert [ev.line for ev in facts.suspicious] == [1]


def test_a_one_line_path_listing_stays_an_environment_dump() -> None:
    # kb collect's env.txt when no NCCL_/TORCH_ variable is set: a PATH of words and slashes
    line = "PATH=/root/.cargo/bin:/root/.pyenv/plugins/pyenv-virtualenv/shims:/usr/local/bin:/usr/bin\n"
    assert classify(line, "env.txt") == "env-dump"


def test_dmesg_naming_a_kernel_option_is_no_environment() -> None:
    head = (
        "[    0.118983] [mem 0xc0000000-0xeebfffff] available for PCI devices\n"
        '[    0.371522] PCI: Using host bridge windows from ACPI; if necessary, use "pci=nocrs"\n'
    )
    assert classify(head, "dmesg.txt") != "env-dump"


HELP_TEXT = (  # Open MPI's help text (prte help-ess-base.txt), as printed
    'The application appears to have been direct launched using "srun",\n'
    "but OMPI was not built with SLURM's PMI support and therefore cannot\n"
    "execute. There are several options for building PMI support under\n"
    "SLURM, depending upon the SLURM version you are using:\n"
    "\n"
    "  version 16.05 or later: you can use SLURM's PMIx support. This\n"
    "  requires that you configure and build SLURM --with-pmix.\n"
    "\n"
    "  Versions earlier than 16.05: you must use either SLURM's PMI-1 or\n"
    "  PMI-2 support. SLURM builds PMI-1 by default, or you can manually\n"
    "  install PMI-2. You must then build Open MPI using --with-pmi pointing\n"
    "  to the SLURM PMI library location.\n"
    "\n"
    "Please configure as appropriate and try again.\n"
)


def test_a_programs_help_text_is_output_though_it_reads_as_sentences() -> None:
    """Open MPI prints its refusals as paragraphs: the file opens with a catalogued message,
    so it is the program's, not the user's words."""
    assert classify(HELP_TEXT, "error.txt") != "notes"


def test_kb_evidence_knows_the_catalogue_without_loading_the_cases(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`kb evidence` reads a folder without loading the cases: the reader must still ask the
    bundled catalogue, or an error file of messages with no log shape (libfabric's EFA abort,
    prov/efa) is taken for the user's notes there and for output by `kb diagnose`."""
    import json
    import subprocess
    import sys

    (tmp_path / "error.txt").write_text(
        "Libfabric EFA provider has encountered an internal error:\n\n"
        "Libfabric error: (-12) Cannot allocate memory\n"
        "EFA internal error: (4112) Failure to post internal receive buffers\n\n"
        "Your application will now abort().\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "kb.cli.main", "evidence", "--format", "json", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    kinds = {f["path"]: f["kind"] for f in json.loads(done.stdout)["facts"]["files"]}
    assert kinds == {"error.txt": "text-log"}
