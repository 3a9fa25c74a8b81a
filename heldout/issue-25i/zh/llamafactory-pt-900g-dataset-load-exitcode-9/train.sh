FORCE_TORCHRUN=1 llamafactory-cli train examples/train_full/qwen2_7b_full_sft_ds3.yaml
