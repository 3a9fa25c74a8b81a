torchrun --standalone --nnodes=1 --nproc_per_node=8 scripts/train_pytorch.py pi0_libero --exp-name pi0_libero --overwrite
