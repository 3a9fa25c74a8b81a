torchrun --nproc_per_node 2 1-pretrain.py
