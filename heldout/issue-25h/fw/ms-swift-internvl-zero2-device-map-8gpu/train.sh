NPROC_PER_NODE=8 \
CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 \

swift sft \
    --model /data/model/OpenGVLab/InternVL2_5-4B \
    --train_type full \
    --dataset "/data/dataset/LaTeX_OCR/json_data/train.jsonl" \
    --val_dataset "/data/dataset/LaTeX_OCR/json_data/validation.jsonl" \
    --torch_dtype bfloat16 \
    --freeze_vit true \
    --freeze_llm true \
    --freeze_aligner false \
    --num_train_epochs 3 \
    --per_device_train_batch_size 2 \
    --per_device_eval_batch_size 2 \
    --learning_rate 5e-6 \
    --gradient_accumulation_steps 8 \
    --eval_steps 100 \
    --save_steps 100 \
    --save_total_limit 1 \
    --logging_steps 5 \
    --max_length 8192 \
    --output_dir /data/output/internvl2_5/full/stage1_latex_ocr_jsonl \
    --warmup_ratio 0.05 \
    --dataloader_num_workers 4 \
    --dataset_num_proc 8 \
    --deepspeed zero2 \
