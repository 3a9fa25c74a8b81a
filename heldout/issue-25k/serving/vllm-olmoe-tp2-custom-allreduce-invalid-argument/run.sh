vllm serve allenai/OLMoE-1B-7B-0924 -tp 2
