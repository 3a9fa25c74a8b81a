python multigpu.py --batch_size 32 10 5
