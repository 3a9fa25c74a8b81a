"""Environment listings inside YAML/JSON documents are environment facts (issue 24, item 5):
a Kubernetes job spec's `env:` list, docker-compose `environment:`, `docker inspect`'s
`"Env"`, a JSON object of variables."""

from __future__ import annotations

import pytest

from kb.evidence.reader import read_evidence

K8S = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: llm-pretrain
spec:
  template:
    spec:
      containers:
      - name: trainer
        image: nvcr.io/nvidia/pytorch:24.01-py3
        env:
        - name: NCCL_IB_HCA
          value: mlx5_0
        - name: NCCL_SOCKET_IFNAME
          value: "eth0"
        - name: POD_IP
          valueFrom:
            fieldRef:
              fieldPath: status.podIP
        resources:
          limits:
            nvidia.com/gpu: 8
"""

COMPOSE = """\
services:
  trainer:
    image: pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime
    environment:
      - NCCL_P2P_DISABLE=1
      - NCCL_DEBUG=INFO
    shm_size: 1gb
"""

INSPECT = """\
[
    {
        "Id": "5f2c0e",
        "Config": {
            "Hostname": "node1",
            "Env": [
                "PATH=/usr/local/sbin:/usr/bin",
                "NCCL_IB_DISABLE=1",
                "NCCL_DEBUG=WARN"
            ],
            "Cmd": ["bash"]
        }
    }
]
"""

VARIABLES = '{\n  "NCCL_SOCKET_IFNAME": "ens5",\n  "MASTER_PORT": 29500\n}\n'

CASES = {
    "job.yaml": (K8S, {"NCCL_IB_HCA": ("mlx5_0", 12), "NCCL_SOCKET_IFNAME": ("eth0", 14)}),
    "docker-compose.yml": (COMPOSE, {"NCCL_P2P_DISABLE": ("1", 5), "NCCL_DEBUG": ("INFO", 6)}),
    "inspect.json": (
        INSPECT,
        {
            "PATH": ("/usr/local/sbin:/usr/bin", 7),
            "NCCL_IB_DISABLE": ("1", 8),
            "NCCL_DEBUG": ("WARN", 9),
        },
    ),
    "vars.json": (VARIABLES, {"NCCL_SOCKET_IFNAME": ("ens5", 2), "MASTER_PORT": ("29500", 3)}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_listed_variables_are_environment(tree, name: str) -> None:  # type: ignore[no-untyped-def]
    text, want = CASES[name]
    facts = read_evidence(tree({name: text})).facts
    assert facts.files[0].kind == "env-dump"
    (cap,) = facts.env_captures
    assert {k: (v, cap.lines[k]) for k, v in cap.variables.items()} == want


def test_a_yaml_without_variables_is_no_environment(tree) -> None:  # type: ignore[no-untyped-def]
    text = "compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nnum_processes: 8\n"
    facts = read_evidence(tree({"default_config.yaml": text})).facts
    assert facts.files[0].kind != "env-dump" and facts.env_captures == []
