uv run python examples/run_grpo_math.py \
    policy.generation.colocated.enabled=false \
    policy.generation.colocated.resources.gpus_per_node=2 \
    policy.generation.vllm_cfg.tensor_parallel_size=2 \
    checkpointing.enabled=false \
    cluster.gpus_per_node=4
