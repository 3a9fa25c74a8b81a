GPUS_PER_NODE=8

NNODES=$WORLD_SIZE
NODE_RANK=$RANK
MASTER_ADDR=$MASTER_ADDR
MASTER_PORT=$MASTER_PORT
NPROC_PER_NODE=$GPUS_PER_NODE

CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7
swift sft \
    --model_type internvl2-8b \
    --dataset data-path \
    --model_id_or_path model-path \
    --output_dir out-path \
    --batch_size 3 \
    --gradient_accumulation_steps 8 \
    --evaluation_strategy "no" \
    --gradient_checkpointing true \
    --use_flash_attn true \
    --num_train_epochs 5 \
    --save_strategy "steps" \
    --save_steps 5000 \
    --sft_type "lora" \
    --save_total_limit 50 \
    --max_length 5120 
