PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True \
vllm serve Qwen/Qwen3-0.6B --data-parallel-size 2 --tensor-parallel-size 2
