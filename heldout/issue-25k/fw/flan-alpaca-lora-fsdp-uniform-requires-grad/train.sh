python training.py --output_dir outputs/model/xl \
--use_fsdp \
--use_lora \
--train_epochs 2 \
--data_path data/train.json \
--model_name_or_path "google/flan-t5-xl" \
--train_batch_size 8 \
--gradient_accumulation_steps 32
