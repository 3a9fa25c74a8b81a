"""Command lines are the command the user ran (issue 24, item 5): a launch script or a pasted
launcher line gives environment facts (its `export` and inline `VAR=value` settings) and the
launcher's world size, not words or a log."""

from __future__ import annotations

import pytest

from kb.evidence.reader import read_evidence
from kb.evidence.registry import classify

RUN_SH = """\
#!/bin/bash
export NCCL_P2P_DISABLE=1
export NCCL_IB_HCA=mlx5_0
cd /workspace/llm
NCCL_DEBUG=INFO torchrun --nnodes 2 --nproc_per_node 8 \\
    --rdzv_endpoint 10.0.0.1:29500 train.py --bf16
"""

COMMANDS = {
    "cmd.txt": "torchrun --nnodes 2 --nproc_per_node 8 --rdzv_endpoint 10.0.0.1:29500 train.py\n",
    "run.sh": RUN_SH,
    "launch.txt": "NCCL_P2P_DISABLE=1 python -m torch.distributed.run --nproc_per_node=4 t.py\n",
    "ds.txt": "deepspeed --num_gpus 8 --num_nodes 2 train.py --deepspeed ds_config.json\n",
    "acc.txt": "accelerate launch --num_processes 4 train.py\n",
    "slurm.txt": "srun --nodes=2 --ntasks-per-node=8 python train.py\n",
    "mpi.txt": "mpirun -np 16 -x NCCL_DEBUG=INFO python train.py\n",
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_launcher_line_is_a_command(name: str) -> None:
    assert classify(COMMANDS[name], name) == "command"


def test_a_launch_script_gives_settings_and_world_size(tree) -> None:  # type: ignore[no-untyped-def]
    facts = read_evidence(tree({"run.sh": RUN_SH})).facts
    assert facts.files[0].kind == "command"
    (cap,) = facts.env_captures
    assert cap.variables == {"NCCL_P2P_DISABLE": "1", "NCCL_IB_HCA": "mlx5_0", "NCCL_DEBUG": "INFO"}
    assert cap.lines == {"NCCL_P2P_DISABLE": 2, "NCCL_IB_HCA": 3, "NCCL_DEBUG": 5}
    assert facts.world_size == 16


def test_a_command_in_the_notes_gives_its_settings(tree) -> None:  # type: ignore[no-untyped-def]
    notes = (
        "The job hangs at the first allreduce on two nodes; it runs when P2P is off.\n"
        "```bash\n"
        "NCCL_P2P_DISABLE=1 torchrun --nnodes 2 --nproc_per_node 4 train.py\n"
        "```\n"
    )
    facts = read_evidence(tree({"notes.md": notes})).facts
    assert facts.files[0].kind == "notes"
    assert [c.variables for c in facts.env_captures] == [{"NCCL_P2P_DISABLE": "1"}]
    assert facts.env_captures[0].lines == {"NCCL_P2P_DISABLE": 3}
    assert facts.world_size == 8


def test_prose_naming_a_launcher_gives_no_settings(tree) -> None:  # type: ignore[no-untyped-def]
    notes = "We ran torchrun with NCCL_P2P_DISABLE=1 on two nodes and it still hangs at init.\n"
    facts = read_evidence(tree({"notes.txt": notes})).facts
    assert facts.env_captures == [] and facts.world_size is None


def test_mpirun_exports_are_settings(tree) -> None:  # type: ignore[no-untyped-def]
    facts = read_evidence(tree({"mpi.txt": COMMANDS["mpi.txt"]})).facts
    assert [c.variables for c in facts.env_captures] == [{"NCCL_DEBUG": "INFO"}]
    assert facts.world_size == 16
