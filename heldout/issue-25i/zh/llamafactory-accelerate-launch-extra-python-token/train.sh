#!/bin/bash
export NCCL_DEBUG=INFO
export NCCL_IB_DISABLE=1
export NCCL_P2P_DISABLE=1
export TORCH_CPP_LOG_LEVEL=INFO

accelerate launch python src/train_bash.py \
    --stage sft \
    --model_name_or_path ../../llama_models/llama-2-7b-chat-hf \
    --prompt_template llama2\
    --do_train \
    --dataset alpaca_gpt4_zh_demo \
    --finetuning_type lora \
    --output_dir sft_model \
    --overwrite_cache \
    --per_device_train_batch_size 1 \
    --gradient_accumulation_steps 4 \
    --lr_scheduler_type cosine \
    --logging_steps 10 \
    --save_steps 1000 \
    --learning_rate 5e-5 \
    --num_train_epochs 1.0 \
    --plot_loss \
    --fp16
