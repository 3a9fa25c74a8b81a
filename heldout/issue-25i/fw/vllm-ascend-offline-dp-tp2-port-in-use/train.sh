    python examples/offline_data_parallel_vllm.py \
            --model="Qwen/Qwen3-0.6B" \
            --dp-size=2 \
            --tp-size=2 \
            --disable-expert-parallel
