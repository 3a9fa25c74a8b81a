export HCCL_ASYNC_ERROR_HANDLING=0
export HCCL_CONNECT_TIMEOUT=7200
export HCCL_EXEC_TIMEOUT=7200
export HCCL_IF_BASE_PORT=64000
ASCEND_RT_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 \
NPROC_PER_NODE=8 \
swift sft \
    --model /root/work/filestorage/lkx/VLM/Qwen3-VL-Model \
    --model_type qwen2_5_vl \
    --train_type full \
    --dataset /root/work/filestorage/lkx/VLM/data/MMMU-Reasoning-Distill-Validation  \
    --torch_dtype bfloat16 \
    --freeze_vit true \
    --freeze_llm true \
    --freeze_aligner false \
    --num_train_epochs 3 \
    --per_device_train_batch_size 2 \
    --learning_rate 5e-6 \
    --gradient_accumulation_steps 8 \
    --eval_steps -1 \
    --save_steps 1000 \
    --save_total_limit 10 \
    --logging_steps 5 \
    --max_length 8192 \
    --output_dir output \
    --warmup_ratio 0.05 \
    --dataloader_num_workers 4 \
    --dataset_num_proc 8 \
    --device_map=npu \
    --ddp_backend hccl \
