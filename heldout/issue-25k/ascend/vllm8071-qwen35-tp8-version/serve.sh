python3 -m vllm.entrypoints.openai.api_server \
    --model /model \
    --served-model-name Qwen3.5-27B \
    --tensor-parallel-size 8 \
    --max-num-seqs 256 \
    --gpu-memory-utilization 0.9 \
    --host 0.0.0.0 \
    --port 9000 \
    --enable-auto-tool-choice \
    --tool-call-parser hermes
