ACCELERATE_PATH=../config/single_config.yaml
MODEL_PATH=/data2/model/llm-model-summary/glm-4-9b-chat

CUDA_VISIBLE_DEVICES=2,3 nohup accelerate launch  \
    --config_file $ACCELERATE_PATH \
    ../src/train_bash.py \
    --stage sft \
    --do_train \
    --model_name_or_path $MODEL_PATH \
    --dataset_dir ../data  \
    --dataset oaast_sft_zh  \
    --template qwen  \
    --finetuning_type lora \
    --lora_target q_proj,v_proj \
    --output_dir $OUTPUT_PATH  \
    --overwrite_output_dir  \
    --overwrite_cache \
    --ddp_find_unused_parameters false \
    --per_device_train_batch_size 1 \
    --gradient_accumulation_steps 1 \
    --lr_scheduler_type cosine \
    --logging_steps 10 \
    --save_steps 1000 \
    --learning_rate 5e-5 \
    --num_train_epochs 1.0 \
    --neftune_noise_alpha 5 \
    --plot_loss \
    --fp16  \
    --use_unsloth  \
    --quantization_bit 4  \
    --flash_attn fa2  \
