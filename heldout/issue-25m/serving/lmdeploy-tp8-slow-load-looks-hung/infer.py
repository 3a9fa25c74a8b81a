from lmdeploy import pipeline, GenerationConfig, TurbomindEngineConfig

backend_config = TurbomindEngineConfig(tp=8)
gen_config = GenerationConfig(top_p=0.8,
                              temperature=0.4,
                              max_new_tokens=1024)
pipe = pipeline('meta-llama/Meta-Llama-3-70B-Instruct',
                backend_config=backend_config)
response = pipe(prompts,
                gen_config=gen_config)
print(response)
