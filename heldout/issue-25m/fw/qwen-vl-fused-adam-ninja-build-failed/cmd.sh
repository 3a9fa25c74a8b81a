sh finetune/finetune_lora_ds.sh
