llm = VLLM(model="meta-llama/Llama-2-13b-chat-hf",
           trust_remote_code=True,
           max_new_tokens=50,
           temperature=0.1,
           tensor_parallel_size=2,
)
