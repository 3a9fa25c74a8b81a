vf-install vf-reverse-text -p ~/verifiers/environments

CUDA_VISIBLE_DEVICES=0 vf-vllm --model Qwen/Qwen3-0.6B --enforce-eager --disable-log-requests &

CUDA_VISIBLE_DEVICES=1,2,3 accelerate launch --num-processes 3 \
    --config_file config ~/verifiers/examples/grpo/train_reverse_text.py --model Qwen/Qwen3-0.6B

wait
