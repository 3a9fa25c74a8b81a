deepspeed --num_gpus 8 \
    --num_nodes 3 \
    --master_addr 192.168.0.6 \
    --master_port 34545 \
    --hostfile /mnt/download/configs/hostfile.txt \
    train.py \
    --model_name_or_path /mnt/model/Llama-2-70b-hf  \
    --data_path  /mnt/merged_data_3.json \
    --output_dir  /mnt/output/70B/\
    --num_train_epochs 1 \
    --model_max_length 256 \
    --per_device_train_batch_size 64 \
    --per_device_eval_batch_size 4 \
    --gradient_accumulation_steps 1 \
