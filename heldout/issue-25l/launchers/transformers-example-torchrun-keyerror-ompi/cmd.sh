torchrun --nproc_per_node=2 --nnodes=1 examples/training/distributed_training.py --backend nccl
