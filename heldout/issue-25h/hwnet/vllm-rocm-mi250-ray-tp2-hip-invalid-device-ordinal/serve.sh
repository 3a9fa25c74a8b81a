vllm serve meta-llama/Llama-3.1-8B-Instruct --distributed-executor-backend="ray" --tensor-parallel-size 2
