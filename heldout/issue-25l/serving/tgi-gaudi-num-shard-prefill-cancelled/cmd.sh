ext-generation-launcher --max-input-tokens 1024 --max-total-tokens 2048 --model-id meta-llama/Llama-3.1-8B-Instruct --hostname 10.10.19.123 --sharded true --num-shard 4 
curl 10.10.19.123:80/generate  -X POST  -d '{"inputs":"Please explain what makes Llama 3 unique compared to other large language models.","parameters":{"max_new_tokens":1024}}'  -H 'Content-Type: application/json'
