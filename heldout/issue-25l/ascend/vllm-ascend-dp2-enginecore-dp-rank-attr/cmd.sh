vllm serve DeepSeek-V2-Lite --trust-remote-code --max-model-len=4096 --gpu-memory-utilization=0.95 --data-parallel-size 2 --data-parallel-size-local 2 --block_size 128 --enforce-eager
