可以拉起的指令：
vllm serve /mnt/data/modelWeights/Qwen3-Coder-Next --tensor-parallel-size 4 --max-model-len 262144 --gpu-memory-utilization 0.80 --max-num-batched-tokens 4096 --compilation-config '{"cudagraph_mode":"FULL_DECODE_ONLY"}'

无法拉起报OOM的指令：
vllm serve /mnt/data/modelWeights/Qwen3-Coder-Next --tensor-parallel-size 8 --max-model-len 262144 --gpu-memory-utilization 0.80 --max-num-batched-tokens 4096 --compilation-config '{"cudagraph_mode":"FULL_DECODE_ONLY"}'
