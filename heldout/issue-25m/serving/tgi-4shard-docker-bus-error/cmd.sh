export volume=/data/TGI 

export HUGGING_FACE_HUB_TOKEN="<my_hf_token>" 

export model=TheBloke/Upstage-Llama-2-70B-instruct-v2-AWQ 

# For 4 shards (Getting error in this command) (with `--num-shard 4`)
docker run -d --gpus all -e HUGGING_FACE_HUB_TOKEN=$HUGGING_FACE_HUB_TOKEN -p 8080:80 -v $volume:/data ghcr.io/huggingface/text-generation-inference:latest --model-id $model --quantize awq --num-shard 4 --max-input-length 4095 --max-total-tokens 4096 --max-batch-prefill-tokens 4096 --max-batch-total-tokens 4096 

# For 2 shards (This command is working fine) (with `--num-shard 2`)
docker run -d --gpus all -e HUGGING_FACE_HUB_TOKEN=$HUGGING_FACE_HUB_TOKEN -p 8080:80 -v $volume:/data ghcr.io/huggingface/text-generation-inference:latest --model-id $model --quantize awq --num-shard 2 --max-input-length 4095 --max-total-tokens 4096 --max-batch-prefill-tokens 4096 --max-batch-total-tokens 4096 
