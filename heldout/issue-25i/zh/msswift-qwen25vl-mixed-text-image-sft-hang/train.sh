NPROC_PER_NODE=8 \
CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 \
MAX_PIXELS=50176 \
MIN_PIXELS=784 \
swift sft \
    --model /mnt/models/Qwen2.5VL_3B \
    --train_type full \
    --dataset '/mnt/annotations/MSSwift/tulu-3-sft-mixture.jsonl' \
    --torch_dtype bfloat16 \
    --attn_impl flash_attn \
    --freeze_vit false \
    --freeze_llm false \
    --freeze_aligner false \
    --num_train_epochs 1 \
    --per_device_train_batch_size 2 \
    --per_device_eval_batch_size 1 \
    --learning_rate 1e-5 \
    --lr_scheduler_type constant \
    --gradient_accumulation_steps 16 \
    --save_steps 500 \
    --save_total_limit 1 \
    --logging_steps 5 \
    --max_length 8192 \
    --output_dir output/verify/tulu-3-sft-mixture \
    --warmup_ratio 0.05 \
    --dataloader_num_workers 0 \
    --report_to wandb \
    --model_author swift \
    --model_name swift-robot \
    --eval_steps -1
