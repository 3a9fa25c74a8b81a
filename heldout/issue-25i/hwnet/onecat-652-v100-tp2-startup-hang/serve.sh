# vLLM 1.5.0 (SM70 build), 2× V100 PCIe, no NVLink
vllm serve <Qwen3.8-27B-NVFP4> \
  --tensor-parallel-size 2 \
  --attention-backend FLASH_ATTN_V100 \
  --kv-cache-dtype fp8_e5m2 \
  --max-model-len 262144 \
  --gpu-memory-utilization 0.85
